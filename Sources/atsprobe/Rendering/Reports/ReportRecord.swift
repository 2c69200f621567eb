import ATSAdvice
import ATSEngine
import ATSPolicy
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One target as the reports see it, decoded from the JSON every run writes (an audit record
/// or a diagnostics document). Live runs render from the same decoded JSON as `atsprobe report`
/// does from a file, so a report of the file equals the report of the run. Decoding is lenient:
/// only what the reports show is read, and unknown fields are ignored.
struct ReportRecord: Decodable, Sendable {
    var kind: String
    var verdict: AuditVerdict
    var input: String?
    var line: Int?
    var message: String?
    var deadlineSeconds: Double?
    var target: TargetName?
    var ruleSet: String?
    var handshakes: Int?
    var tests: [Test]
    var suggestion: Suggestion?
    var run: RunInfo?
    var finishedAt: Date?

    struct TargetName: Decodable, Sendable {
        var url: String
        var host: String
        var port: Int
    }

    struct Test: Decodable, Sendable {
        var section: String
        var title: String
        var dictionary: JSONValue?
        var verdict: TestVerdict
    }

    struct TestVerdict: Decodable, Sendable {
        var passed: Bool
        var reasons: [Reason]
        var error: AppleError?
    }

    struct Reason: Decodable, Sendable {
        var kind: String
        var layer: String
        var message: String
    }

    struct Suggestion: Decodable, Sendable {
        var kind: String
        var domain: String?
        var exception: JSONValue?
        var evidence: [KeyEvidence]?
        var fixes: [Fix]?
        var reason: String?
    }

    /// A server fix; `haproxy` is absent from schema 1 files.
    struct Fix: Decodable, Sendable {
        var keys: [String]
        var change: String
        var nginx: [String]
        var apache: [String]
        var haproxy: [String]?
    }

    private enum Key: String, CodingKey {
        case kind, verdict, input, line, message, deadlineSeconds, target, ruleSet, handshakes, tests, suggestion, run,
             finishedAt, defaultPasses, reachability
    }

    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        // A diagnostics document (diagnose --format json) has no kind and no verdict: it is a result.
        kind = try c.decodeIfPresent(String.self, forKey: .kind) ?? "result"
        input = try c.decodeIfPresent(String.self, forKey: .input)
        line = try c.decodeIfPresent(Int.self, forKey: .line)
        message = try c.decodeIfPresent(String.self, forKey: .message)
        deadlineSeconds = try c.decodeIfPresent(Double.self, forKey: .deadlineSeconds)
        target = try c.decodeIfPresent(TargetName.self, forKey: .target)
        ruleSet = try c.decodeIfPresent(String.self, forKey: .ruleSet)
        handshakes = try c.decodeIfPresent(Int.self, forKey: .handshakes)
        tests = try c.decodeIfPresent([Test].self, forKey: .tests) ?? []
        suggestion = try c.decodeIfPresent(Suggestion.self, forKey: .suggestion)
        run = try c.decodeIfPresent(RunInfo.self, forKey: .run)
        finishedAt = try c.decodeIfPresent(Date.self, forKey: .finishedAt)
        if let verdict = try c.decodeIfPresent(AuditVerdict.self, forKey: .verdict) {
            self.verdict = verdict
        } else if try c.decodeIfPresent(Bool.self, forKey: .defaultPasses) == true {
            verdict = .pass
        } else if try c.decodeIfPresent(String.self, forKey: .reachability) == "unreachable" {
            verdict = .unreachable
        } else {
            verdict = suggestion?.kind == "exception" ? .exception : .noException
        }
        guard ["result", "timeout", "error"].contains(kind) else {
            throw DecodingError.dataCorruptedError(forKey: .kind, in: c, debugDescription: "unknown record kind")
        }
    }

    /// How the target is named: its URL, or the input line when it never became a target.
    var name: String { target?.url ?? input ?? "" }

    /// The exception's keys with their values as Info.plist spells them, sorted by key.
    var exceptionKeys: [(key: String, value: String)] {
        guard case .object(let domain)? = suggestion?.exception else { return [] }
        let spelled = Dictionary((suggestion?.evidence ?? []).map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
        return domain.keys.sorted().map { ($0, spelled[$0] ?? domain[$0]!.plistText) }
    }

    /// The reason in one sentence: why no exception helps, or why the default connection fails.
    var reason: String? {
        switch verdict {
        case .pass: return nil
        case .noException: return suggestion?.reason ?? tests.first?.verdict.reasons.first?.message
        case .timeout: return "no result within \(deadlineSeconds.map { NumberFormatting.seconds($0) } ?? "the deadline")"
        case .error: return message
        case .exception, .unreachable: return tests.first?.verdict.reasons.first?.message
        }
    }

    /// The default connection's other reasons, each once, beside `reason`.
    var otherReasons: [String] {
        guard verdict != .pass else { return [] }
        let said = reason ?? ""
        var seen: Set<String> = [said]
        // When no exception helps, Allow All Loads' reason says why; the default connection's
        // handshake failure would say it again with another offer.
        let reasons = (tests.first?.verdict.reasons ?? []).filter { !(verdict == .noException && $0.kind.hasPrefix("handshakeFailed")) }
        return reasons.map(\.message).filter { !said.contains($0) && seen.insert($0).inserted }
    }

    /// The order reports list targets in: input order (arguments first), whatever order they finished in.
    static func inputOrder(_ a: ReportRecord, _ b: ReportRecord) -> Bool {
        ((a.line ?? 0), a.input ?? a.name) < ((b.line ?? 0), b.input ?? b.name)
    }
}

/// Any JSON value, for the parts of a record the reports show as they are (ATS dictionaries).
indirect enum JSONValue: Decodable, Sendable, Hashable {
    case object([String: JSONValue]), array([JSONValue]), string(String), number(Double), bool(Bool), null

    init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let n = try? c.decode(Double.self) { self = .number(n) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSONValue].self) { self = .array(a) }
        else { self = .object(try c.decode([String: JSONValue].self)) }
    }

    /// A property-list value as an Info.plist shows it: `true`, `TLSv1.0`, `{key = value}`.
    var plistText: String {
        switch self {
        case .object(let d): "{" + d.keys.sorted().map { "\($0) = \(d[$0]!.plistText)" }.joined(separator: "; ") + "}"
        case .array(let a): "(" + a.map(\.plistText).joined(separator: ", ") + ")"
        case .string(let s): s
        case .number(let n): n == n.rounded() && abs(n) < 1e15 ? String(Int(n)) : String(n)
        case .bool(let b): b ? "true" : "false"
        case .null: "null"
        }
    }
}

enum NumberFormatting {
    /// "60 s", "2.5 s".
    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}
