import Foundation
import Testing
import TestSupport

/// The public API of every library product is written down in api/ (scripts/api-description,
/// from the toolchain's swift-api-digester over this build's modules), so an API change is a
/// reviewed diff (issue 39, item 6). This fails until api/ is written anew after a change.
@Suite struct APIDescriptionTests {
    @Test func thePublicAPIIsTheCheckedInDescription() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        // The modules of the build these tests run from (the directory holding the binary).
        let build = BinaryRunner.binaryURL.deletingLastPathComponent()
        let check = try await ChildProcess.run(RequiredTool.python, [root.appendingPathComponent("scripts/api-description").path,
                                                                     "--check", "--build", build.path], timeout: 300)
        #expect(!check.timedOut)
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
    }
}
