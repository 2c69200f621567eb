import ATSReport
import ATSAdvice
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
package struct PlistDiagnostic: Hashable {
    /// The lint rule id, the tightening kind, or the failure class ("load/trust.expired").
    package var rule: String
    package var level: SARIFLog.Level
    /// Where in the dictionary: the key the finding is about, or the entry that governs a load.
    package var keyPath: String
    package var message: String
    /// The URL of the load a result is about (plist check), when there is one.
    package var target: String?
}

package enum PlistDiagnostics {
    package static func level(_ severity: LintFinding.Severity) -> SARIFLog.Level {
        switch severity {
        case .error: .error
        case .warning: .warning
        case .info: .note
        }
    }

    // MARK: plist lint

    package static func lint(_ findings: [LintFinding]) -> [PlistDiagnostic] {
        findings.map {
            PlistDiagnostic(rule: $0.rule, level: level($0.severity), keyPath: $0.keyPath,
                            message: "\($0.keyPath): \($0.message) (fix: \($0.fix))")
        }
    }

    /// One SARIF rule per lint rule, in LintRule's order.
    package static var lintRules: [SARIFLog.Rule] {
        LintRule.all.map {
            SARIFLog.Rule(id: $0.id, shortDescription: .init(text: $0.summary),
                          defaultConfiguration: .init(level: level($0.severity)))
        }
    }

    // MARK: plist check

    /// Tightening findings at their keys; each failing load at the entry that governs it (the
    /// line a developer edits), with the target's URL beside it.
    package static func check(_ checks: [PlistCheckJSON.TargetJSON], _ findings: [TighteningFinding]) -> [PlistDiagnostic] {
        var out: [PlistDiagnostic] = []
        for check in checks {
            for load in check.loads where !load.verdict.passed {
                let under = check.loads.count > 1 ? " under \(load.reading.label)" : ""
                for reason in load.verdict.reasons {
                    let diagnostic = PlistDiagnostic(
                        rule: loadRulePrefix + reason.code, level: .error, keyPath: governingKeyPath(load.policy),
                        message: "\(UntrustedText.escape(check.target.url)) fails\(under), governed by \(load.policy.governedBy): \(UntrustedText.escape(reason.message))",
                        target: check.target.url)
                    if !out.contains(diagnostic) { out.append(diagnostic) }
                }
            }
        }
        for finding in findings {
            out.append(PlistDiagnostic(rule: finding.kind.rawValue, level: finding.kind == .insufficient ? .error : .warning,
                                       keyPath: finding.keyPath, message: PlistCheckText.line(finding)))
        }
        return out
    }

    static let loadRulePrefix = ReportSARIF.loadRulePrefix

    /// The key a load's policy comes from: its exception entry, the global key that exempts it,
    /// or the NSAppTransportSecurity dictionary (default ATS).
    package static func governingKeyPath(_ policy: EffectivePolicy) -> String {
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
    package static func checkRules(for diagnostics: [PlistDiagnostic]) -> [SARIFLog.Rule] {
        var rules: [SARIFLog.Rule] = [
            .init(id: TighteningFinding.Kind.unnecessary.rawValue, shortDescription: .init(text: "a key or entry no checked host needs"), defaultConfiguration: .init(level: .warning)),
            .init(id: TighteningFinding.Kind.tooWide.rawValue, shortDescription: .init(text: "a key that weakens ATS more than the checked hosts need"), defaultConfiguration: .init(level: .warning)),
            .init(id: TighteningFinding.Kind.insufficient.rawValue, shortDescription: .init(text: "a load fails: the hosts need more than the dictionary allows"), defaultConfiguration: .init(level: .error)),
        ]
        var seen = Set(rules.map(\.id))
        for diagnostic in diagnostics where !seen.contains(diagnostic.rule) {
            seen.insert(diagnostic.rule)
            rules.append(ReportSARIF.loadRule(diagnostic.rule, under: "the app's dictionary"))
        }
        return rules
    }

    // MARK: renderers

    /// clang's diagnostic form, which Xcode shows inline from a Run Script build phase:
    /// `path:line:column: error|warning|note: message [rule]`; a binary plist has no lines,
    /// so its lines are `path: warning: message [rule]`.
    package static func xcode(_ diagnostics: [PlistDiagnostic], locations: PlistLocations) -> String {
        let file = UntrustedText.escape(locations.path, limit: 1024)
        var out = ""
        for diagnostic in diagnostics {
            let place = locations.position(of: diagnostic.keyPath).map { "\(file):\($0.line):\($0.column)" } ?? file
            out += "\(place): \(diagnostic.level.rawValue): \(diagnostic.message) [\(diagnostic.rule)]\n"
        }
        return out
    }

    /// SARIF 2.1.0 through the report library (`ReportSARIF`): each result at its key (a binary
    /// plist: at the file) and, for a load, the target URL as a related location.
    package static func sarif(_ diagnostics: [PlistDiagnostic], rules: [SARIFLog.Rule], locations: PlistLocations, toolVersion: String) -> SARIFLog {
        ReportSARIF.log(findings(diagnostics, uri: SARIFLog.fileURI(locations.path), artifact: nil, locations: locations),
                        rules: rules, toolVersion: toolVersion)
    }

    /// The diagnostics as the report library's findings, in the file `uri` (or the artifact
    /// `artifact` of the run: an Info.plist inside an archive).
    package static func findings(_ diagnostics: [PlistDiagnostic], uri: String, artifact: Int?, locations: PlistLocations) -> [SARIFFinding] {
        diagnostics.map { diagnostic in
            let position = locations.position(of: diagnostic.keyPath)
            return SARIFFinding(rule: diagnostic.rule, level: diagnostic.level, message: diagnostic.message,
                                place: .file(uri: uri, artifact: artifact, line: position?.line, column: position?.column),
                                target: diagnostic.target)
        }
    }
}
