import Testing
@testable import ATSFiles
import TestSupport

/// ATSFiles names an input file by what its caller calls it: the command line says "--input",
/// a library caller gets "the target list", never an option it does not have.
@Suite("Input source names")
struct InputSourceNameTests {
    @Test func aLibraryCallerIsNotToldAboutAnOption() {
        let error = #expect(throws: InputError.self) { try AuditInput(arguments: [], path: "/nonexistent/targets.txt") }
        #expect(error?.description.hasPrefix("cannot read the target list '/nonexistent/targets.txt': ") == true, "\(String(describing: error))")
        let named = #expect(throws: InputError.self) { try AuditInput(arguments: [], path: "/nonexistent/targets.txt", option: "--input") }
        #expect(named?.description.hasPrefix("cannot read --input '/nonexistent/targets.txt': ") == true)
        let list = #expect(throws: InputError.self) { try TargetList.read("/nonexistent/targets.txt") }
        #expect(list?.description.contains("--") == false, "\(String(describing: list))")
    }

    /// Callers choose by the code (the exit status: 70 only for `.localResources`), never by the
    /// text: a missing file, a file that is not text, a lock held by another process.
    @Test func readersSayWhatIsWrongWithACode() throws {
        let missing = #expect(throws: InputError.self) { try AuditInput(arguments: [], path: "/nonexistent/targets.txt") }
        #expect(missing?.code == .fileAccess)
        #expect(InputError.Code.reading(outOfResources: true) == .localResources)
        #expect(InputError.Code.reading(outOfResources: false) == .fileAccess)
        let directory = try TemporaryDirectory()
        let binary = directory.path + "/targets.bin"
        try FileStream.writeAtomically([0xFF, 0xFE, 0x00, 0x80], to: binary)
        let notText = #expect(throws: InputError.self) { try TargetList.read(binary) }
        #expect(notText?.code == .badContents, "\(String(describing: notText))")
    }
}
