import ATSAdvice
import ATSEngine
import ATSPolicy
import PropertyListPositions
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport
import TLSFacts

/// One result of `plist lint` or `plist check` located at a key of the Info.plist, in the
/// shape the editor formats share (`--format xcode`, `--format sarif`). Text is escaped already.
struct PlistDiagnostic: Hashable {
    /// The lint rule id, the tightening kind, or the failure class ("load/trust.expired").
    var rule: String
    var level: SARIFLog.Level
    /// Where in the dictionary: the key the finding is about, or the entry that governs a load.
    var keyPath: String
    var message: String
    /// The URL of the load a result is about (plist check), when there is one.
    var target: String?
}

enum PlistDiagnostics {
    static func level(_ severity: LintFinding.Severity) -> SARIFLog.Level {
        switch severity {
        case .error: .error
        case .warning: .warning
        case .info: .note
        }
    }

    // MARK: plist lint

    static func lint(_ findings: [LintFinding]) -> [PlistDiagnostic] {
        findings.map {
            PlistDiagnostic(rule: $0.rule, level: level($0.severity), keyPath: $0.keyPath,
                            message: "\($0.keyPath): \($0.message) (fix: \($0.fix))")
        }
    }

    /// One SARIF rule per lint rule, in LintRule's order.
    static var lintRules: [SARIFLog.Rule] {
        LintRule.all.map {
            SARIFLog.Rule(id: $0.id, shortDescription: .init(text: $0.summary),
                          defaultConfiguration: .init(level: level($0.severity)))
        }
    }

    // MARK: plist check

    /// Tightening findings at their keys; each failing load at the entry that governs it (the
    /// line a developer edits), with the target's URL beside it.
    static func check(_ checks: [PlistTargetCheck], _ tightening: TighteningReport) -> [PlistDiagnostic] {
        var out: [PlistDiagnostic] = []
        for check in checks {
            for load in check.loads where !load.load.verdict.passed {
                let under = check.loads.count > 1 ? " under \(load.reading.label)" : ""
                for reason in load.load.verdict.reasons {
                    let diagnostic = PlistDiagnostic(
                        rule: loadRulePrefix + reason.code, level: .error, keyPath: governingKeyPath(load.policy),
                        message: "\(UntrustedText.escape(check.target.url)) fails\(under), governed by \(load.policy.governedBy): \(UntrustedText.escape(reason.message))",
                        target: check.target.url)
                    if !out.contains(diagnostic) { out.append(diagnostic) }
                }
            }
        }
        for finding in tightening.findings {
            out.append(PlistDiagnostic(rule: finding.kind.rawValue, level: finding.kind == .insufficient ? .error : .warning,
                                       keyPath: finding.keyPath,
                                       message: "\(finding.keyPath): \(finding.appValue) -> \(finding.neededValue): \(finding.message)"))
        }
        return out
    }

    static let loadRulePrefix = "load/"

    /// The key a load's policy comes from: its exception entry, the global key that exempts it,
    /// or the NSAppTransportSecurity dictionary (default ATS).
    static func governingKeyPath(_ policy: EffectivePolicy) -> String {
        let ats = ATSKey.appTransportSecurity.name
        if let match = policy.match {
            return "\(ats).\(ATSKey.exceptionDomains.name).\(KeyPositions.pathComponent(match.key))"
        }
        switch policy.exemption {
        case .arbitraryLoads?: return "\(ats).\(ATSKey.allowsArbitraryLoads.name)"
        case .localNetworking?: return "\(ats).\(ATSKey.allowsLocalNetworking.name)"
        case .ipAddressBeforeIOS17?, nil: return ats
        }
    }

    /// The rules `plist check` can report: the three tightening kinds, then the failure
    /// classes of this run's results (the class set is open: trust problems, certificate rules...).
    static func checkRules(for diagnostics: [PlistDiagnostic]) -> [SARIFLog.Rule] {
        var rules: [SARIFLog.Rule] = [
            .init(id: TighteningFinding.Kind.unnecessary.rawValue, shortDescription: .init(text: "a key or entry no checked host needs"), defaultConfiguration: .init(level: .warning)),
            .init(id: TighteningFinding.Kind.tooWide.rawValue, shortDescription: .init(text: "a key that weakens ATS more than the checked hosts need"), defaultConfiguration: .init(level: .warning)),
            .init(id: TighteningFinding.Kind.insufficient.rawValue, shortDescription: .init(text: "a load fails: the hosts need more than the dictionary allows"), defaultConfiguration: .init(level: .error)),
        ]
        var seen = Set(rules.map(\.id))
        for diagnostic in diagnostics where !seen.contains(diagnostic.rule) {
            seen.insert(diagnostic.rule)
            let failureClass = diagnostic.rule.dropFirst(loadRulePrefix.count)
            rules.append(.init(id: diagnostic.rule, shortDescription: .init(text: "a load fails under the app's dictionary: \(failureClass)"), defaultConfiguration: .init(level: .error)))
        }
        return rules
    }

    // MARK: renderers

    /// clang's diagnostic form, which Xcode shows inline from a Run Script build phase:
    /// `path:line:column: error|warning|note: message [rule]`; a binary plist has no lines,
    /// so its lines are `path: warning: message [rule]`.
    static func xcode(_ diagnostics: [PlistDiagnostic], locations: PlistLocations) -> String {
        let file = UntrustedText.escape(locations.path, limit: 1024)
        var out = ""
        for diagnostic in diagnostics {
            let place = locations.position(of: diagnostic.keyPath).map { "\(file):\($0.line):\($0.column)" } ?? file
            out += "\(place): \(diagnostic.level.rawValue): \(diagnostic.message) [\(diagnostic.rule)]\n"
        }
        return out
    }

    /// SARIF 2.1.0: one run, `rules` in the driver, each result at its key (a binary plist:
    /// at the file) and, for a load, the target URL as a related location.
    static func sarif(_ diagnostics: [PlistDiagnostic], rules: [SARIFLog.Rule], locations: PlistLocations) -> SARIFLog {
        let uri = SARIFLog.fileURI(locations.path)
        let index = Dictionary(rules.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        let results = diagnostics.map { diagnostic in
            let region = locations.position(of: diagnostic.keyPath).map { SARIFLog.Region(startLine: $0.line, startColumn: $0.column) }
            let related = diagnostic.target.map { url in
                [SARIFLog.Location(id: 0, physicalLocation: .init(artifactLocation: .init(uri: url), region: nil),
                                   message: .init(text: "the target loaded"))]
            }
            return SARIFLog.Result(ruleId: diagnostic.rule, ruleIndex: index[diagnostic.rule], level: diagnostic.level,
                                   message: .init(text: diagnostic.message),
                                   locations: [.init(physicalLocation: .init(artifactLocation: .init(uri: uri), region: region))],
                                   relatedLocations: related)
        }
        let driver = SARIFLog.Driver(name: "atsprobe", version: ToolVersion.current,
                                     informationUri: nil, rules: rules)
        return SARIFLog(runs: [.init(tool: .init(driver: driver), results: results)])
    }
}
