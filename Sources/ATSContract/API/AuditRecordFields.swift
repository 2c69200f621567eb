import ATSAdvice
import ATSPolicy
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PropertyList

/// What the reports read from a record, whatever its kind.
extension AuditRecord {
    public var verdict: AuditVerdict {
        switch self {
        case .result(_, let verdict, _): verdict
        case .timeout: .timeout
        case .error: .error
        }
    }

    public var document: DiagnosticsJSON? {
        if case .result(let document, _, _) = self { return document }
        return nil
    }

    public var entry: Entry? {
        switch self {
        case .result(_, _, let entry): entry
        case .timeout(_, _, let entry, _, _), .error(_, let entry, _, _): entry
        }
    }

    public var input: String? { entry?.input }
    public var line: Int? { entry?.line }

    public var target: TargetReport? {
        switch self {
        case .result(let document, _, _): document.target
        case .timeout(let target, _, _, _, _): target
        case .error: nil
        }
    }

    public var run: RunInfo? {
        switch self {
        case .result(let document, _, _): document.run
        case .timeout(_, _, _, let run, _), .error(_, _, let run, _): run
        }
    }

    public var finishedAt: Date? {
        switch self {
        case .result(let document, _, _): document.finishedAt
        case .timeout(_, _, _, _, let finishedAt), .error(_, _, _, let finishedAt): finishedAt
        }
    }

    public var tests: [DiagnosticsJSON.TestJSON] { document?.tests ?? [] }
    public var suggestion: DiagnosticsJSON.SuggestionJSON? { document?.suggestion }

    /// The record without its handshakes (each test's hops): what a report keeps per target until
    /// its end, a few KB instead of tens; no report shows a hop.
    public var withoutHandshakes: AuditRecord {
        guard case .result(var document, let verdict, let entry) = self else { return self }
        document.live = nil  // the text summary's handshake, which no report shows either
        document.tests = document.tests.map { test in
            var test = test
            test.hops = []
            return test
        }
        return .result(document, verdict: verdict, entry: entry)
    }

    /// How the target is named: its URL, or the input line when it never became a target.
    public var name: String { target?.url ?? input ?? "" }

    /// The exception's keys with their values as Info.plist spells them, sorted by key.
    public var exceptionKeys: [(key: String, value: String)] {
        guard let domain = suggestion?.exception?.dictionaryValue else { return [] }
        let spelled = Dictionary((suggestion?.evidence ?? []).map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
        return domain.keys.sorted().map { ($0, spelled[$0] ?? PlistText.of(domain[$0]!)) }
    }

    /// The reason in one sentence: why no exception helps, or why the default connection fails.
    public var reason: String? {
        switch self {
        case .timeout(_, let deadline, _, _, _): return "no result within \(NumberFormatting.seconds(deadline))"
        case .error(let message, _, _, _): return message
        case .result(let document, let verdict, _):
            switch verdict {
            case .pass: return nil
            case .noException: return document.suggestion.reason ?? document.tests.test(.defaultConnection)?.verdict.reasons.first?.message
            default: return document.tests.test(.defaultConnection)?.verdict.reasons.first?.message
            }
        }
    }

    /// The default connection's other reasons, each once, beside `reason`.
    public var otherReasons: [String] {
        guard verdict != .pass else { return [] }
        let said = reason ?? ""
        var seen: Set<String> = [said]
        // When no exception helps, Allow All Loads' reason says why; the default connection's
        // handshake failure would say it again with another offer.
        let reasons = (tests.test(.defaultConnection)?.verdict.reasons ?? []).filter {
            guard verdict == .noException, case .handshakeFailed = $0.kind else { return true }
            return false
        }
        return reasons.map(\.message).filter { !said.contains($0) && seen.insert($0).inserted }
    }

    /// The order reports list targets in: input order (arguments first), whatever order they finished in.
    public static func inputOrder(_ a: AuditRecord, _ b: AuditRecord) -> Bool {
        ((a.line ?? 0), a.input ?? a.name) < ((b.line ?? 0), b.input ?? b.name)
    }
}
