import ATSTestServers
import Foundation
import Testing
import TestSupport

/// Issue 24, "replacing a file": `--output` replaces a file as a careful tool does (docs/
/// robustness.md, "Files"): mode and owner kept, a new file under the umask, a symlink's target
/// replaced by a rename (never truncated first), temporary names within NAME_MAX, and two
/// `--merge X --output X` runs taking turns.
@Suite struct OutputFileTests {
    static let plist = infoPlistXML("<key>NSAppTransportSecurity</key><dict><key>NSAllowsArbitraryLoads</key><true/></dict>")

    /// `plist lint` writes its report to `output`: offline, quick, and through the same writer
    /// as every other command's --output.
    func lint(_ directory: TemporaryDirectory, output: String) async throws -> BinaryRunner.Result {
        let input = try directory.write("Info.plist", Self.plist)
        let result = try await BinaryRunner.run(["plist", "lint", input, "--output", output], timeout: 60)
        #expect(!result.timedOut)
        return result
    }

    func mode(_ path: String) -> (mode: mode_t, uid: uid_t, gid: gid_t)? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return (info.st_mode & 0o7777, info.st_uid, info.st_gid)
    }

    func leftovers(_ directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix(".atsprobe-") || $0.contains(".atsprobe-") }
    }

    @Test(arguments: [0o600 as mode_t, 0o444, 0o640])
    func replacedFileKeepsItsMode(_ original: mode_t) async throws {
        let directory = try TemporaryDirectory(prefix: "atsprobe-output")
        let output = try directory.write("report.txt", "old\n")
        #expect(chmod(output, original) == 0)
        let result = try await lint(directory, output: output)
        #expect(result.status == 0 || result.status == 1, "\(result.stderr)")
        #expect(mode(output)?.mode == original, "mode \(String(mode(output)?.mode ?? 0, radix: 8)), was \(String(original, radix: 8))")
        #expect(try String(contentsOfFile: output, encoding: .utf8) != "old\n")
        #expect(try leftovers(directory.url.path).isEmpty)
    }

    /// As root (CI), a file owned by someone else keeps its owner and group.
    @Test func replacedFileKeepsItsOwner() async throws {
        guard try RequiredTool.condition(geteuid() == 0, "not root, cannot give the file another owner",
                                         for: "replacedFileKeepsItsOwner") else { return }
        let directory = try TemporaryDirectory(prefix: "atsprobe-output")
        let output = try directory.write("report.txt", "old\n")
        #expect(chown(output, 4321, 4322) == 0)
        #expect(chmod(output, 0o664) == 0)
        _ = try await lint(directory, output: output)
        let after = mode(output)
        #expect(after?.uid == 4321 && after?.gid == 4322 && after?.mode == 0o664, "\(String(describing: after))")
    }

    /// A new file gets 0666 less the umask (the tool used to force 0644, and with umask 077 a
    /// private report became world-readable).
    @Test(arguments: [("077", 0o600 as mode_t), ("027", 0o640), ("002", 0o664)])
    func newFileFollowsTheUmask(_ umask: String, _ expected: mode_t) async throws {
        let directory = try TemporaryDirectory(prefix: "atsprobe-output")
        let input = try directory.write("Info.plist", Self.plist)
        let output = directory.path("new.txt")
        let result = try await ChildProcess.run("/bin/sh", ["-c", "umask \(umask) && exec \"$0\" plist lint \"$1\" --output \"$2\"",
                                                            BinaryRunner.binaryURL.path, input, output], timeout: 60)
        #expect(!result.timedOut && (result.status == 0 || result.status == 1), "\(result.stderr)")
        #expect(mode(output)?.mode == expected, "umask \(umask): \(String(mode(output)?.mode ?? 0, radix: 8))")
    }

    /// Through a symlink the target is replaced (a temporary beside it, renamed over it); the
    /// link stays a link. It used to be truncated in place first.
    @Test func symlinkTargetIsReplacedAndTheLinkKept() async throws {
        let directory = try TemporaryDirectory(prefix: "atsprobe-output")
        let elsewhere = try TemporaryDirectory(prefix: "atsprobe-output-target")
        let target = try elsewhere.write("real.txt", "old\n")
        #expect(chmod(target, 0o600) == 0)
        let link = directory.path("link.txt")
        #expect(symlink("../" + elsewhere.url.lastPathComponent + "/real.txt", link) == 0)
        var before = stat()
        #expect(stat(target, &before) == 0)
        _ = try await lint(directory, output: link)
        var info = stat()
        #expect(lstat(link, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK, "the link is still a link")
        #expect(try String(contentsOfFile: target, encoding: .utf8).contains("NSAllowsArbitraryLoads"))
        #expect(stat(target, &info) == 0 && info.st_ino != before.st_ino, "replaced by a rename, not rewritten in place")
        #expect(mode(target)?.mode == 0o600)
        #expect(try leftovers(elsewhere.url.path).isEmpty && leftovers(directory.url.path).isEmpty)
    }

    /// A legal 250-byte name: the temporary's name used to be the name plus 16 bytes.
    @Test func nameOf250BytesIsWritten() async throws {
        let directory = try TemporaryDirectory(prefix: "atsprobe-output")
        let output = directory.path(String(repeating: "n", count: 246) + ".txt")
        try "old\n".write(toFile: output, atomically: false, encoding: .utf8)
        let result = try await lint(directory, output: output)
        #expect(result.status == 0 || result.status == 1, "\(result.stderr)")
        #expect(try String(contentsOfFile: output, encoding: .utf8).contains("NSAllowsArbitraryLoads"))
    }

    /// A full disk (a 64 KiB tmpfs, filled): the write fails with one line, exit 64, and the old
    /// content is still there, whether --output names the file or a symlink to it. Needs root
    /// to mount (CI runs as root, where failing to mount fails the test); left out with a message otherwise.
    @Test func fullDiskNeverLosesTheOldContent() async throws {
        let directory = try TemporaryDirectory(prefix: "atsprobe-output")
        let mountPoint = directory.path("small")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: false)
        let mounted = geteuid() == 0 && mount("tmpfs", mountPoint, "tmpfs", 0, "size=64k") == 0
        guard try RequiredTool.condition(mounted, "cannot mount a tmpfs here (needs root): \(String(cString: strerror(errno)))",
                                         for: "fullDiskNeverLosesTheOldContent") else { return }
        defer { umount2(mountPoint, Int32(MNT_DETACH)) }
        let old = String(repeating: "old content line\n", count: 200)
        let target = mountPoint + "/report.txt"
        try old.write(toFile: target, atomically: false, encoding: .utf8)
        // Fill what is left, a page at a time, until the file system refuses (bounded by its size).
        let filler = open(mountPoint + "/filler", O_WRONLY | O_CREAT, 0o600)
        #expect(filler >= 0)
        let page = [UInt8](repeating: 0x41, count: 4096)
        for _ in 0..<64 where write(filler, page, page.count) == page.count {}
        close(filler)
        let link = directory.path("link.txt")
        #expect(symlink(target, link) == 0)
        for output in [target, link] {
            let result = try await lint(directory, output: output)
            #expect(result.status == 64, "\(output): \(result.status) \(result.stderr)")
            #expect(result.stderr == "atsprobe: cannot write '\(output)': No space left on device\n", "\(result.stderr)")
            #expect(try String(contentsOfFile: target, encoding: .utf8) == old, "the old content is whole")
            #expect(try leftovers(mountPoint).isEmpty, "no temporary left behind")
        }
    }

    /// Two `diagnose --merge X --output X` runs at once, for two hosts: both entries are in X
    /// afterwards. The slow run (its server trickles every response over about 6 s) has read X
    /// once its server sees a connection (X is read before any); only then does the quick run
    /// start, and it ends first. Without the lock and the re-read under it, the slow run's write
    /// replaced the quick run's entry (last rename wins).
    @Test func concurrentMergesIntoOneFileKeepBothEntries() async throws {
        let directory = try TemporaryDirectory(prefix: "atsprobe-merge-lock")
        let path = try directory.write("Info.plist", infoPlistXML("<key>CFBundleIdentifier</key><string>com.example.app</string>"))
        let fixture = try ExceptionFixture()
        let identity = try fixture.pki.issue(CertificateSpec(commonName: "slow.example", dnsNames: ["slow.example", "quick.example"], key: .rsa(bits: 2048)))
        let response = Array("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
        var slowConfiguration = TLSServerConfiguration(identity: identity, http: .trickle(response, intervalMilliseconds: 100))
        slowConfiguration.minVersion = .tls11
        slowConfiguration.maxVersion = .tls11
        let slowServer = try TestTLSServer.start(slowConfiguration)
        defer { slowServer.stop() }
        try await fixture.withServer(identity: identity, configure: { $0.minVersion = .tls11; $0.maxVersion = .tls11 }) { quickPort in
            func arguments(_ host: String, _ port: Int) -> [String] {
                ["diagnose", "--connect-to", ":\(port):127.0.0.1:\(port)", "--timeout", "30", "--rules", "documented",
                 "--ca-file", fixture.rootPath, "--merge", path, "--output", path, "https://\(host):\(port)/"]
            }
            var environment = ProcessInfo.processInfo.environment
            environment["NO_COLOR"] = "1"
            let slow = try SpawnedProcess(BinaryRunner.binaryURL.path, arguments("slow.example", slowServer.port), environment: environment)
            // Bounded: the slow run connects within seconds, or the test fails here.
            let connected = try await offCooperativePool {
                let deadline = Date().addingTimeInterval(60)
                while slowServer.acceptedConnections == 0 && Date() < deadline { usleep(10_000) }
                return slowServer.acceptedConnections > 0
            }
            #expect(connected, "the slow run never connected")
            let quick = try await BinaryRunner.run(arguments("quick.example", quickPort), timeout: 120)
            let slowTimedOut = try await offCooperativePool { slow.finish(within: 120) }
            #expect(!quick.timedOut && quick.status == 1, "\(quick.status) \(quick.stderr)")
            #expect(!slowTimedOut && slow.exitCode == 1, "\(slow.exitCode) \(String(decoding: slow.stderr, as: UTF8.self))")
        }
        let ats = try PythonPlist.json(Data(contentsOf: URL(fileURLWithPath: path)), only: "NSAppTransportSecurity")
        #expect(ats.contains("\"quick.example\"") && ats.contains("\"slow.example\""), "\(ats)")
        #expect(try leftovers(directory.url.path).isEmpty)
    }
}
