import Foundation
import Testing

/// Issue 39 item 5: diagnose's renderers (nscurl's text, the suggested and merged plist), `--rules
/// all`'s grid and the audit's sink render from documents (ATSContract) and import nothing that
/// links OpenSSL, c-ares or epoll, so ATSCommandOutputs can drop its engine dependencies once
/// every renderer is off the engine (ContractDependencyTests then checks the library's graph).
@Suite struct RendererImportTests {
    static let files = [
        "Sources/ATSCommandOutputs/Outputs/DiagnosticsText.swift",
        "Sources/ATSCommandOutputs/Outputs/DiagnosticsForecastText.swift",
        "Sources/ATSCommandOutputs/Outputs/ExceptionPlist.swift",
        "Sources/ATSCommandOutputs/Outputs/ExceptionPlistMerge.swift",
        "Sources/ATSCommandOutputs/RuleSetMatrixGrid.swift",
        "Sources/ATSCommandOutputs/RuleSetMatrixJSON.swift",
        "Sources/ATSCommandOutputs/RuleSetMatrixText.swift",
        "Sources/ATSCommandOutputs/RuleSetMatrixCSV.swift",
        "Sources/ATSCommandOutputs/RuleSetMatrixMarkdown.swift",
        "Sources/ATSCommandOutputs/RuleSetMatrixHTML.swift",
        "Sources/ATSCommandOutputs/AuditSink.swift",
    ]

    @Test func diagnoseRulesAllAndAuditRenderersImportNoEngine() throws {
        let graph = try ModuleGraphTests.declaredGraph()
        for file in Self.files {
            let source = try ModuleGraphTests.read(file)
            let imports = source.split(separator: "\n").compactMap { line -> String? in
                guard let match = line.firstMatch(of: /^(?:@_exported |package |public |internal )?import (\w+)$/) else { return nil }
                return String(match.1)
            }
            #expect(!imports.isEmpty, "\(file): no imports read")
            let modules = imports.filter { graph[$0] != nil }
            var reached = Set(modules)
            for module in modules { reached.formUnion(ContractDependencyTests.closure(of: module, in: graph)) }
            let forbidden = ContractDependencyTests.linksSockets.filter(reached.contains)
            #expect(forbidden.isEmpty, "\(file) imports \(modules.sorted()), which reach \(forbidden)")
        }
    }
}
