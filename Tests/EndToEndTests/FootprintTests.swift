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
}
