import ATSApp
import ATSAppFixtures
import Foundation
import Testing
import TestSupport

/// The bounded zip reader: what it reads, and the hostile archives it refuses before they cost
/// anything (each refusal is one line naming the archive).
@Suite struct ZipArchiveTests {
    /// Removed with the suite's instance (one per test).
    let files: TemporaryDirectory
    var directory: String { files.path }

    init() throws {
        files = try TemporaryDirectory(prefix: "atsprobe-zip")
    }

    func write(_ bytes: [UInt8], _ name: String = "test.ipa") throws -> String {
        let path = directory + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    func refusal(_ bytes: [UInt8], limits: ArchiveLimits = ArchiveLimits()) throws -> String {
        let path = try write(bytes)
        do {
            _ = try AppScan.inventory(path: path, limits: limits)
        } catch {
            #expect(!error.description.contains("\n"))
            #expect(error.description.hasPrefix("'\(path)': "))
            return error.problem
        }
        Issue.record("accepted a hostile archive")
        return ""
    }

    @Test func storedAndDeflatedEntriesReadBack() throws {
        var zip = ZipWriter()
        let text = Array(String(repeating: "https://api.planted.test/ ", count: 200).utf8)
        zip.add("a/stored.txt", text, method: .stored)
        zip.add("a/deflated.txt", text, method: .deflate)
        zip.add("empty", [], method: .deflate)
        zip.addDirectory("a/dir")
        let archive = try ZipArchive(path: try write(zip.finished()))
        #expect(archive.entries.map(\.path) == ["a/stored.txt", "a/deflated.txt", "empty", "a/dir"])
        for entry in archive.entries where entry.kind == .file {
            let expected = entry.path == "empty" ? [] : text
            #expect(try archive.read(entry, limit: 1 << 20) == expected)
        }
    }

    @Test func zipBombByRatioIsRefusedBeforeInflating() throws {
        var zip = ZipWriter()
        zip.add("Payload/Demo.app/Info.plist", [UInt8](repeating: 0, count: 4 * 1024 * 1024))
        let problem = try refusal(zip.finished())
        #expect(problem.contains("expands"), "\(problem)")
        #expect(problem.contains("zip bomb"))
    }

    /// An entry that declares 100 bytes but inflates to 1 MiB: inflating stops at 101 bytes.
    @Test func entryInflatingPastItsDeclaredSizeIsRefused() throws {
        var zip = ZipWriter()
        zip.add("big", [UInt8](repeating: 0x41, count: 1 << 20), declaredSize: 100)
        let archive = try ZipArchive(path: try write(zip.finished()))
        #expect(throws: AppReadError.self) { try archive.read(archive.entries[0], limit: 1 << 30) }
        do { _ = try archive.read(archive.entries[0], limit: 1 << 30) } catch {
            #expect(error.problem.contains("inflates past its declared 100 bytes"), "\(error)")
        }
    }

    @Test(arguments: ["Payload/Demo.app/../../../evil.sh", "../evil", "/etc/cron.d/evil", "Payload\\..\\..\\evil", ".."])
    func pathTraversalIsRefused(_ name: String) throws {
        var zip = ZipWriter()
        zip.add("Payload/Demo.app/Info.plist", AppFixture.infoPlist(identifier: "a", executable: "Demo", ats: nil))
        zip.add(name, Array("x".utf8))
        let problem = try refusal(zip.finished())
        #expect(problem.contains("path traversal"), "\(problem)")
    }

    @Test(arguments: ["../../../../etc/passwd", "/etc/passwd", "../../Other.app/secret", "Frameworks/../../../x"])
    func symlinkOutOfTheBundleIsRefused(_ target: String) throws {
        var app = AppFixture.demo(mainATS: nil, extensionATS: nil, mainHosts: [], extensionHosts: [])
        app.symlinks["Resources/link"] = target
        let problem = try refusal(app.ipa())
        #expect(problem.contains("points out of the bundle"), "\(problem)")
    }

    @Test func symlinkInsideTheBundleIsFollowed() throws {
        var app = AppFixture.demo(mainATS: nil, extensionATS: nil, mainHosts: [], extensionHosts: [])
        // The executable named by CFBundleExecutable is a link, as in a macOS framework.
        app.files["Versions/A/Demo"] = AppFixture.executable(strings: ["https://linked.planted.test/"])
        app.files["Demo"] = nil
        app.symlinks["Demo"] = "Versions/A/Demo"
        let inventory = try AppScan.inventory(path: try write(app.ipa()))
        #expect(inventory.hosts.map(\.host).contains("linked.planted.test"))
    }

    @Test func tenThousandEntriesAreRefusedFromTheEndRecord() throws {
        var zip = ZipWriter()
        for i in 0..<10_000 { zip.add("Payload/Demo.app/f\(i)", [], method: .stored) }
        let problem = try refusal(zip.finished())
        #expect(problem == "10000 entries, more than the limit of 8000 (the entry limit can be raised)")
        // Raised, the same archive reads (and fails later only for its missing Info.plist).
        let raised = try refusal(zip.finished(), limits: ArchiveLimits(maximumEntries: 10_000))
        #expect(raised.contains("no Info.plist"), "\(raised)")
    }

    @Test func totalSizeAndEntrySizeAreBounded() throws {
        var zip = ZipWriter()
        zip.add("Payload/Demo.app/a", Array(repeating: 1, count: 600), method: .stored)
        zip.add("Payload/Demo.app/b", Array(repeating: 1, count: 600), method: .stored)
        #expect(try refusal(zip.finished(), limits: ArchiveLimits(maximumTotalSize: 1000)).contains("uncompressed in all"))
        #expect(try refusal(zip.finished(), limits: ArchiveLimits(maximumEntrySize: 500)).contains("more than the limit of 500"))
    }

    /// Issue 24, "deep paths in an archive": a 129 KB archive whose one entry is 32,000 levels
    /// deep took 56 s and 1.98 GiB (every ancestor path stored as a whole string); eight aborted.
    /// Names are bounded (1,024 bytes, 64 levels) before they are split.
    @Test func deepEntryIsRefusedByItsNameLength() throws {
        var zip = ZipWriter()
        zip.add("Payload/Demo.app/Info.plist", Array("x".utf8))
        let deep = Array(repeating: "a", count: 32_000).joined(separator: "/") + "/f"
        zip.add(deep, [1], method: .stored)
        let started = ContinuousClock.now
        let problem = try refusal(zip.finished())
        #expect(problem.contains("has a name of 64001 bytes, more than the limit of 1024; refused"), "\(problem)")
        // The name is shown cut and escaped, not whole.
        #expect(problem.count < 400)
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    @Test func entryDeeperThanTheWalkersBoundIsRefused() throws {
        var zip = ZipWriter()
        zip.add("Payload/Demo.app/Info.plist", Array("x".utf8))
        zip.add((Array(repeating: "d", count: 64) + ["f"]).joined(separator: "/"), [1], method: .stored)
        #expect(try refusal(zip.finished()).hasSuffix("is nested 65 deep, more than the limit of 64; refused"))
    }

    /// At the bounds an entry is read (64 levels, 998 bytes), and many near them are indexed:
    /// 2,000 entries 63 levels deep with names of about 990 bytes, a different first directory
    /// each so that no ancestor is shared (126,000 directories).
    @Test func entriesAtTheBoundsAreRead() async throws {
        var app = AppFixture.demo(mainATS: nil, extensionATS: nil, mainHosts: ["https://deep.planted.test/"], extensionHosts: [])
        let level = String(repeating: "x", count: 15)
        // Payload/Demo.app/ + 61 levels + h.txt: 64 components, 998 bytes.
        let inApp = (Array(repeating: level, count: 61) + ["h.txt"]).joined(separator: "/")
        app.files[inApp] = Array("https://deeper.planted.test/".utf8)
        let path = try write(app.ipa { zip in
            for i in 0..<2_000 {
                zip.add((["top\(i)"] + Array(repeating: level, count: 61) + ["f"]).joined(separator: "/"), [], method: .stored)
            }
        })
        // Seconds of CPU: on a thread of its own, not one of the few cooperative threads that
        // the probe tests running alongside need.
        let hosts = try await offCooperativePool { try AppScan.inventory(path: path).hosts.map(\.host).sorted() }
        #expect(hosts == ["deep.planted.test", "deeper.planted.test"])
    }

    /// Nested bundles cost bundles times files: 200 entries 60 `.framework` levels deep (12,000
    /// bundles, a 300 KB archive) ran for more than 5 minutes. Refused past 2,000 bundles.
    @Test func thousandsOfNestedBundlesAreRefused() throws {
        let app = AppFixture.demo(mainATS: nil, extensionATS: nil, mainHosts: [], extensionHosts: [])
        let archive = app.ipa { zip in
            for i in 0..<40 {
                zip.add("Payload/Demo.app/i\(i).framework/" + String(repeating: "f.framework/", count: 60) + "x", [], method: .stored)
            }
        }
        let started = ContinuousClock.now
        let problem = try refusal(archive)
        #expect(problem.hasSuffix("bundles (.app, .appex and .framework directories), more than the limit of 2000; refused"), "\(problem)")
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    /// Issue 24, "limits said wrongly": `zip -fz` saturates the sizes (0xFFFFFFFF) and puts the
    /// real ones in a ZIP64 extra field; the reader said "4294967295 bytes".
    @Test(arguments: [false, true])
    func zip64IsRefusedAsZIP64(endRecord: Bool) throws {
        var zip = ZipWriter()
        zip.add("Payload/Demo.app/Info.plist", Array("x".utf8), zip64: true)
        let problem = try refusal(zip.finished(zip64End: endRecord))
        #expect(problem.contains("ZIP64 is not supported"), "\(problem)")
        #expect(!problem.contains("4294967295"))
    }

    @Test func fifoAndDeviceAreRefusedWithoutBlocking() throws {
        let fifo = directory + "/app.ipa"
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(throws: AppReadError(.notAnApp, path: fifo, problem: "not a regular file or a directory")) { try AppScan.inventory(path: fifo) }
        #expect(throws: AppReadError(.notAnApp, path: "/dev/zero", problem: "not a regular file or a directory")) { try AppScan.inventory(path: "/dev/zero") }
    }

    @Test func notAZipIsOneLine() throws {
        #expect(try refusal(Array("hello, this is not an archive at all".utf8)) == "not a zip archive (no end of central directory)")
        var zip = ZipWriter()
        zip.add("Payload/Demo.app/Info.plist", Array("x".utf8))
        let whole = zip.finished()
        // The central directory cut off: its offset points past the data that is left.
        let cut = Array(whole[..<30]) + Array(whole.suffix(22))
        #expect(try refusal(cut).hasPrefix("not a zip archive"))
    }

    @Test func directoryAppWithSymlinkOutIsRefused() throws {
        var app = AppFixture.demo(mainATS: nil, extensionATS: nil, mainHosts: ["https://dir.planted.test/"], extensionHosts: [])
        let ok = try app.writeApp(in: directory + "/ok")
        #expect(try AppScan.inventory(path: ok).hosts.map(\.host) == ["dir.planted.test"])
        app.symlinks["escape"] = "../../../../etc"
        let bad = try app.writeApp(in: directory + "/bad")
        #expect(throws: AppReadError.self) { try AppScan.inventory(path: bad) }
    }

    /// Damaged archives (bytes flipped, cut short) are read or refused with an AppReadError;
    /// never a crash, a hang or another error.
    @Test func damagedArchivesAreReadOrRefusedCleanly() throws {
        let app = AppFixture.demo(mainATS: ["NSAllowsArbitraryLoads": true], extensionATS: nil,
                                  mainHosts: ["https://api.planted.test/"], extensionHosts: ["https://share.planted.test/"])
        let original = app.ipa()
        var state: UInt64 = 0xA7_5EED
        func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
        var refused = 0
        for round in 0..<80 {
            var bytes = original
            if round % 4 == 3 {
                bytes = Array(bytes[..<next(bytes.count)])
            } else {
                // Flip bytes in the central directory and end record, where the bounds are read.
                for _ in 0..<(1 + next(4)) {
                    let at = round % 2 == 0 ? bytes.count - 1 - next(min(bytes.count, 600)) : next(bytes.count)
                    bytes[at] ^= UInt8(1 + next(255))
                }
            }
            let path = try write(bytes, "damaged.ipa")
            do {
                _ = try AppScan.inventory(path: path)
            } catch {
                refused += 1
                #expect(!error.description.contains("\n"))
            }
        }
        #expect(refused > 20, "most damaged archives are refused (\(refused))")
    }
}
