import ATSPolicy
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport

/// One problem the linter found in an ATS dictionary. Codable with stable field names: the
/// JSON output of `atsprobe plist lint` is an array of these.
public struct LintFinding: Sendable, Hashable, Codable, CustomStringConvertible {
    /// How much a finding matters (docs/lint.md):
    /// - error: the key does not do what it says: Apple ignores or misreads it;
    /// - warning: it works but weakens security, is deprecated, or needs App Store justification;
    /// - info: it has no effect, or is worth knowing.
    public enum Severity: String, Sendable, Hashable, Codable, Comparable, CaseIterable {
        case info, warning, error

        private var rank: Int {
            switch self {
            case .info: 0
            case .warning: 1
            case .error: 2
            }
        }

        public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
    }

    public var severity: Severity
    /// The stable rule id ("unknown-key", "wrong-type", ...); see LintRule.
    public var rule: String
    /// Where, as dotted keys with [index] for arrays, e.g.
    /// "NSAppTransportSecurity.NSExceptionDomains.example.com.NSExceptionMinimumTLSVersion".
    /// Keys from the file are escaped (UntrustedText) so the path is safe to print.
    public var keyPath: String
    /// One line: what is wrong.
    public var message: String
    /// One line: how to fix it.
    public var fix: String
    /// Whether `message` itself says that ATS ignores the key or entry: set by the check that
    /// words the message, so a caller that adds the consequence (tightening: "ATS ignores it: ...")
    /// never says it twice and never searches the sentence. Not part of the JSON.
    public var saysATSIgnoresIt = false

    private enum CodingKeys: String, CodingKey { case severity, rule, keyPath, message, fix }

    public init(severity: Severity, rule: String, keyPath: String, message: String, fix: String) {
        self.severity = severity
        self.rule = rule
        self.keyPath = keyPath
        self.message = message
        self.fix = fix
    }

    init(_ rule: LintRule, at keyPath: LintKeyPath, _ message: String, fix: String, saysATSIgnoresIt: Bool = false) {
        self.init(severity: rule.severity, rule: rule.id, keyPath: keyPath.description, message: message, fix: fix)
        self.saysATSIgnoresIt = saysATSIgnoresIt
    }

    public var description: String { "\(severity.rawValue)[\(rule)] \(keyPath): \(message) (fix: \(fix))" }

    /// The report order: by key path, then rule, then message, so output never depends on
    /// dictionary order.
    static func reportOrder(_ a: LintFinding, _ b: LintFinding) -> Bool {
        (a.keyPath, a.rule, a.message) < (b.keyPath, b.rule, b.message)
    }
}
