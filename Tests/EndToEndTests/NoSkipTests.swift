import Foundation
import Testing
import TestSupport

/// Nothing passes by skipping (issue 40, item 0): under CI a missing validator throws, and no
/// test decides by itself to leave a check out. A test that printed "skipped" and returned
/// hid three failing JUnit assertions for weeks.
@Suite struct NoSkipTests {
    @Test func aMissingToolFailsUnderCIAndIsNamedElsewhere() throws {
        let ci = ["CI": "true"]
        #expect(throws: RequiredTool.Missing.self) {
            try RequiredTool.executable(["/nonexistent/validator"], install: "apt-get install nothing", for: "NoSkipTests", environment: ci)
        }
        #expect(throws: RequiredTool.Missing.self) {
            try RequiredTool.pythonModule("atsprobe_no_such_module", install: "nothing", for: "NoSkipTests", environment: ci)
        }
        #expect(throws: RequiredTool.Missing.self) {
            try RequiredTool.condition(false, "never holds", for: "NoSkipTests", environment: ci)
        }
        #expect(try RequiredTool.executable(["/nonexistent/validator"], install: "x", for: "NoSkipTests", environment: [:]) == nil)
        #expect(try RequiredTool.condition(true, "holds", for: "NoSkipTests", environment: ci))
        #expect(RequiredTool.underCI(["CI": "false"]) == false && RequiredTool.underCI(["CI": "1"]))
    }

    /// `.ci/run` installs what the tests import for the interpreter they call: the modules it
    /// checks are the ones the tests ask RequiredTool for, of /usr/bin/python3.
    @Test func ciInstallsEveryPythonModuleTheTestsImportForTheirInterpreter() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let ci = try String(contentsOf: root.appendingPathComponent(".ci/run"), encoding: .utf8)
        #expect(ci.contains("PYTHON=\(RequiredTool.python)"))
        for module in try Self.testSources(root).filter({ !$0.hasSuffix("NoSkipTests.swift") }).flatMap(Self.pythonModules) {
            #expect(ci.contains("need_python_module \(module) "), ".ci/run does not install \(module) for \(RequiredTool.python)")
        }
    }

    /// No test skips on its own: no `.enabled(if:)`/`.disabled` trait, no "skipped" message, no
    /// `/usr/bin/env python3` (another interpreter than the one .ci/run provides for).
    @Test func noTestLeavesACheckOutOnItsOwn() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var offenders: [String] = []
        for file in try Self.testSources(root) where !file.hasSuffix("NoSkipTests.swift") {
            let text = try String(contentsOfFile: file, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.trimmingCharacters(in: .whitespaces)
                if code.hasPrefix("//") { continue }
                if code.contains(".enabled(if:") || code.contains(".disabled(") || code.contains(#"["python3""#)
                    || (code.contains("print(") && code.lowercased().contains("skipped")) {
                    offenders.append("\(file):\(number + 1): \(code)")
                }
            }
        }
        #expect(offenders.isEmpty, "checks left out without RequiredTool:\n\(offenders.joined(separator: "\n"))")
    }

    static func testSources(_ root: URL) throws -> [String] {
        let tests = root.appendingPathComponent("Tests")
        guard let walker = FileManager.default.enumerator(atPath: tests.path) else { return [] }
        return walker.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.map { tests.appendingPathComponent($0).path }.sorted()
    }

    /// The modules a file asks `RequiredTool.pythonModule` for.
    static func pythonModules(_ file: String) throws -> [String] {
        let text = try String(contentsOfFile: file, encoding: .utf8)
        return text.components(separatedBy: "RequiredTool.pythonModule(\"").dropFirst().compactMap { $0.split(separator: "\"").first.map(String.init) }
    }
}
