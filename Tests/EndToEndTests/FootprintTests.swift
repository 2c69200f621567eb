import Foundation
import Testing
import TestSupport

/// atsprobe's memory floor is mostly the code it maps (docs/performance.md, "Memory"). Linking
/// Foundation proper would bring back libFoundation, CoreFoundation and the ICU data, about
/// 10 MiB of resident memory for every run: this guards against it creeping back in.
@Suite struct FootprintTests {
    @Test func binaryLinksFoundationEssentialsOnly() async throws {
        let ldd = try await ChildProcess.run("/usr/bin/ldd", [BinaryRunner.binaryURL.path], timeout: 30)
        #expect(!ldd.timedOut, "ldd timed out")
        let libraries = ldd.stdout
        #expect(ldd.status == 0 || libraries.contains("not a dynamic executable"), "\(libraries)")
        for forbidden in ["libFoundation.so", "lib_FoundationICU.so", "libFoundationInternationalization.so"] {
            #expect(!libraries.contains(forbidden), "atsprobe links \(forbidden):\n\(libraries)")
        }
    }

    /// At run time too (dlopen included): the dynamic loader's own log of every file it loads.
    @Test func nothingLoadsFoundationProperAtRunTime() async throws {
        let result = try await BinaryRunner.run(["plist", "lint", "/nonexistent.plist"], timeout: 30, environment: ["LD_DEBUG": "files"])
        #expect(result.status == 64)
        // A dynamically linked Swift runtime shows in the log, and FoundationEssentials with it;
        // a release build carries both inside the binary (-static-stdlib).
        if result.stderr.contains("libswiftCore.so") {
            #expect(result.stderr.contains("libFoundationEssentials.so"), "the loader log should name what it loads")
        }
        for forbidden in ["libFoundation.so", "lib_FoundationICU.so", "libFoundationInternationalization.so"] {
            #expect(!result.stderr.contains(forbidden), "loaded \(forbidden)")
        }
    }

    /// libxml2 (and the ICU and lzma libraries it brings) is opened only by a command that reads
    /// key positions (PropertyListPositions' `LibXML2.loaded`, dlopen on first use), not linked:
    /// every other command starts without loading it (docs/performance.md, "Start-up").
    @Test func libxml2IsNotLinked() async throws {
        let ldd = try await ChildProcess.run("/usr/bin/ldd", [BinaryRunner.binaryURL.path], timeout: 30)
        #expect(!ldd.timedOut, "ldd timed out")
        for forbidden in ["libxml2.so", "libicuuc.so", "libicudata.so", "liblzma.so"] {
            #expect(!ldd.stdout.contains(forbidden), "atsprobe links \(forbidden):\n\(ldd.stdout)")
        }
    }

    @Test func libxml2IsLoadedOnlyWhereKeyPositionsAreRead() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let plist = """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0">
        <dict>
        \t<key>NSAppTransportSecurity</key>
        \t<dict>
        \t\t<key>NSAllowsArbitraryLoads</key>
        \t\t<true/>
        \t</dict>
        </dict>
        </plist>
        """
        let path = try directory.write("Info.plist", plist)
        let text = try await BinaryRunner.run(["plist", "lint", path], timeout: 30, environment: ["LD_DEBUG": "files"])
        #expect(!text.timedOut)
        #expect(text.stdout.contains("NSAllowsArbitraryLoads"), "\(text.stdout)")
        #expect(!text.stderr.contains("libxml2.so"), "plist lint (text) loaded libxml2")
        #expect(!text.stderr.contains("libicuuc.so"), "plist lint (text) loaded ICU")
        // The same file with positions: libxml2 is opened, and the finding has its line.
        let xcode = try await BinaryRunner.run(["plist", "lint", path, "--format", "xcode"], timeout: 30, environment: ["LD_DEBUG": "files"])
        #expect(!xcode.timedOut)
        #expect(xcode.stderr.contains("libxml2.so"), "plist lint --format xcode did not load libxml2")
        #expect(xcode.stdout.contains("\(path):6:"), "\(xcode.stdout)")
    }
}
