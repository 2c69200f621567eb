import Testing
@testable import ATSFiles

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
}
