import ATSTestServers
import Foundation
import TLSFacts
import TestSupport

/// Helpers for the `plist` end-to-end tests: property-list files in a fresh temporary
/// directory, and loopback servers from a test PKI whose root is passed with --ca-file.
struct PlistFixture {
    /// Removed with the last copy of the fixture.
    let files: TemporaryDirectory
    let pki: TestPKI
    let rootPath: String

    var directory: URL { files.url }

    init() throws {
        files = try TemporaryDirectory(prefix: "atsprobe-plist")
        pki = try TestPKI()
        rootPath = try pki.writeRootPEM()
    }

    /// Writes `root` as an XML or binary property list (the encodings PropertyListFile reads) and returns the path.
    func write(_ root: [String: Any], name: String, binary: Bool = false) throws -> String {
        let data = try PropertyListSerialization.data(fromPropertyList: root, format: binary ? .binary : .xml, options: 0)
        return try write(data, name: name)
    }

    func write(_ data: Data, name: String) throws -> String {
        let url = directory.appendingPathComponent(name)
        try data.write(to: url)
        return url.path
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// Starts a server for `names` with the given protocol range, runs `body`, and stops the server whatever happens.
    func withServer<T>(names: [String] = ["localhost"], min: TLSVersion = .tls12, max: TLSVersion = .tls12,
                       _ body: (TestTLSServer) async throws -> T) async throws -> T {
        let identity = try pki.issue(CertificateSpec(commonName: names[0], dnsNames: names))
        let server = try TestTLSServer.start(TLSServerConfiguration(identity: identity, minVersion: min, maxVersion: max))
        defer { server.stop() }
        return try await body(server)
    }

    /// `plist check` arguments for one https target on the server, connecting to 127.0.0.1.
    /// Under `--rules documented`: by Apple's code (the default) localhost is a local name, not subject to ATS.
    func checkArguments(_ file: String, host: String = "localhost", port: Int, extra: [String] = []) -> [String] {
        ["plist", "check", file, "https://\(host):\(port)/", "--ca-file", rootPath,
         "--connect-to", "\(host):\(port):127.0.0.1:\(port)", "--timeout", "5", "--rules", "documented"] + extra
    }
}

/// `{NSAppTransportSecurity: ats}` with a bundle id, as in a real Info.plist.
func infoPlist(_ ats: [String: Any]) -> [String: Any] {
    ["CFBundleIdentifier": "test.atsprobe.app", "NSAppTransportSecurity": ats]
}

func jsonObject(_ text: String) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
}
