import Foundation
import Testing

/// The renderers of probe, pins, cert, plist check and app read documents (ATSContract's
/// ProbeReport, PinsReport, CertReport, PlistCheckJSON; AppJSON), not the engine's values, so
/// none of their files imports the libraries over OpenSSL, c-ares or epoll (issue 39 item 5).
/// A scan of each file's imports, as ContractDependencyTests scans ReportCommand.swift's.
@Suite struct CommandRendererImportTests {
    static let files = ["ProbeText", "PinsText", "CertOutput", "PlistCheckText", "PlistDiagnostics",
                        "AppText", "AppReportText", "AppMarkdown", "AppHTML", "AppJSON", "AppSARIF"]
        .map { "Sources/ATSCommandOutputs/Outputs/\($0).swift" }
        // The documents, and what makes them (the engine's side is ATSEngine/Documents).
        + ["ProbeReport", "PinsReport", "CertReport", "PlistCheckJSON", "PlistCheckLabels"].map { "Sources/ATSContract/Documents/\($0).swift" }

    static let forbidden: Set<String> = ["ATSEngine", "ATSProbe", "ATSTrust", "OpenSSLSupport", "COpenSSL", "CATSProbeShims", "CAres", "CEpoll"]

    static func imports(_ source: String) -> [String] {
        source.split(separator: "\n").compactMap { line -> String? in
            guard let match = line.firstMatch(of: /^\s*(?:@_exported |@testable |package |public |internal )?import (?:(?:struct|class|enum|protocol|func|var|let|typealias) )?(\w+)/) else { return nil }
            return String(match.1)
        }
    }

    @Test(arguments: files) func importsNoEngine(_ path: String) throws {
        let source = try ModuleGraphTests.read(path)
        let found = Self.imports(source)
        #expect(!found.isEmpty, "\(path) has no imports: moved or renamed? Update this list")
        let bad = found.filter(Self.forbidden.contains)
        #expect(bad.isEmpty, "\(path) imports \(bad)")
    }

    /// The output types of these commands in CommandOutputs.swift (a file shared with diagnose's
    /// outputs, which still import the engine) name no engine type in their code.
    @Test func theirResultsHoldDocuments() throws {
        let source = try ModuleGraphTests.read("Sources/ATSCommandOutputs/CommandOutputs.swift")
        for (start, end) in [("/// `probe`:", "/// `plist lint`:"), ("/// `plist check`:", "/// `plist explain`:"), ("/// `app`:", "/// Each subcommand's formats")] {
            let from = try #require(source.range(of: start), "CommandOutputs.swift has no \(start)")
            let to = try #require(source.range(of: end, range: from.upperBound..<source.endIndex), "CommandOutputs.swift has no \(end)")
            // The code only: a comment may say where the document comes from.
            let part = source[from.lowerBound..<to.lowerBound].split(separator: "\n")
                .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }.joined(separator: "\n")
            for engineType in ["ProbeResult", "ProbeJudgement", "ChainJudgement", "PlistTargetCheck", "DiagnosticsReport", "AppReport", "TargetForecast"] {
                #expect(part.firstMatch(of: try Regex("\\b\(engineType)\\b")) == nil, "\(start) names \(engineType)")
            }
        }
    }
}
