/// What one audit entry came to: the one verdict of a target, named the same in every output
/// (the `verdict` JSON field, the text, CSV, HTML, Markdown, JUnit and SARIF reports, the
/// tally). Derived once, by `init(defaultPasses:reachable:exceptionHelps:)`, from a live run's
/// report (ATSEngine) and from a document read back alike.
public enum AuditVerdict: String, Codable, CaseIterable, Sendable {
    /// Default ATS loads the target.
    case pass
    /// An NSExceptionDomains entry makes it load.
    case exception
    /// It speaks TLS, but no exception dictionary makes it load.
    case noException = "no-exception"
    /// Nothing spoke TLS: not resolved, refused, silent, reset, or not TLS.
    case unreachable
    /// The per-target --deadline passed first.
    case timeout
    /// The line is not a target.
    case error

    /// The one derivation of a target's verdict from its run: default ATS passes; else nothing
    /// spoke TLS; else an exception entry makes it load; else none does.
    public init(defaultPasses: Bool, reachable: Bool, exceptionHelps: Bool) {
        if defaultPasses {
            self = .pass
        } else if !reachable {
            self = .unreachable
        } else if exceptionHelps {
            self = .exception
        } else {
            self = .noException
        }
    }

    /// The verdict's name in every output: the JSON value (`no-exception`, not "no exception helps").
    public var name: String { rawValue }

    /// What the name means, one line: the legend a report shows beside the names.
    public var meaning: String {
        switch self {
        case .pass: "default ATS loads it"
        case .exception: "an NSExceptionDomains entry makes it load"
        case .noException: "it speaks TLS, but no exception makes it load"
        case .unreachable: "nothing spoke TLS"
        case .timeout: "the per-target deadline passed first"
        case .error: "the input line is not a target"
        }
    }
}

extension DiagnosticsJSON {
    /// The document's verdict, by the one derivation (`AuditVerdict.init(defaultPasses:reachable:exceptionHelps:)`).
    public var verdict: AuditVerdict {
        AuditVerdict(defaultPasses: defaultPasses, reachable: reachability != DiagnosticsJSON.unreachable,
                     exceptionHelps: suggestion.kind == DiagnosticsJSON.exceptionKind)
    }

    /// `reachability` when nothing spoke TLS, and the suggestion kind of an exception (docs/json-schema.md).
    public static let unreachable = "unreachable"
    public static let exceptionKind = "exception"
}
