import ATSTestServers
import Foundation
import TLSFacts
import TestSupport

/// Shared by the exception tests: loopback servers from a test PKI, the binary run against
/// them, and python3's plistlib as an independent reader of every property list produced.
struct ExceptionFixture {
    let pki: TestPKI
    let rootPath: String

    init() throws {
        pki = try TestPKI()
        rootPath = try pki.writeRootPEM()
    }

    /// Starts a server for `spec` (or `identity`), runs `body` with its port, stops it whatever happens.
    func withServer<T>(_ spec: CertificateSpec = CertificateSpec(key: .rsa(bits: 2048)), identity: TestIdentity? = nil,
                       configure: (inout TLSServerConfiguration) -> Void = { _ in },
                       _ body: (Int) async throws -> T) async throws -> T {
        var configuration = TLSServerConfiguration(identity: try identity ?? pki.issue(spec))
        configure(&configuration)
        let server = try TestTLSServer.start(configuration)
        defer { server.stop() }
        return try await body(server.port)
    }

    /// `atsprobe diagnose` against localhost:PORT (connected to 127.0.0.1), with this PKI's root unless `trustRoot` is false.
    /// Under `--rules documented` unless `extra` names a rule set: by Apple's code (the default)
    /// localhost is a local name, not subject to ATS.
    func diagnose(port: Int, _ extra: [String], trustRoot: Bool = true, hosts: [String] = ["localhost"]) async throws -> BinaryRunner.Result {
        var arguments = ["diagnose", "--connect-to", ":\(port):127.0.0.1:\(port)", "--timeout", "10"]
        if !extra.contains("--rules") { arguments += ["--rules", "documented"] }
        if trustRoot { arguments += ["--ca-file", rootPath] }
        arguments += extra + hosts.map { "https://\($0):\(port)/" }
        return try await BinaryRunner.run(arguments, timeout: 120)
    }
}

/// python3's plistlib, run with a deadline: the property list as sorted JSON, or the error.
enum PythonPlist {
    struct Failure: Error, CustomStringConvertible { var description: String }

    /// `drop`: leave this top-level key out; `only`: print only this top-level key's value.
    static func json(_ data: Data, drop: String? = nil, only: String? = nil, timeout: Double = 30) throws -> String {
        let script = """
        import plistlib,sys,json
        d=plistlib.loads(sys.stdin.buffer.read())
        a=sys.argv[1:]
        if a and a[0]=="drop": d.pop(a[1],None)
        if a and a[0]=="only": d=d.get(a[1])
        print(json.dumps(d, sort_keys=True, default=repr))
        """
        let process = try SpawnedProcess(RequiredTool.python, ["-c", script] + (drop.map { ["drop", $0] } ?? only.map { ["only", $0] } ?? []),
                                         environment: ProcessInfo.processInfo.environment)
        process.writeStdin(Array(data))
        if process.finish(within: timeout) { throw Failure(description: "python3 timed out") }
        guard process.exitCode == 0 else { throw Failure(description: "plistlib failed: \(String(decoding: process.stderr, as: UTF8.self))") }
        return String(decoding: process.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func json(_ text: String) throws -> String { try json(Data(text.utf8)) }

}
