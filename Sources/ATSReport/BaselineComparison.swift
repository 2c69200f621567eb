import ATSEngine
import TLSFacts

/// An audit compared with an earlier one (`audit --baseline OLD.jsonl`, `report --diff OLD NEW`):
/// each target of the new run, matched to the old run's record by its name (the URL; the input
/// line's text for a line that never became a target), marked
///
/// - `new`: it fails now and passed before, or was not in the baseline;
/// - `fixed`: it passes now and failed before;
/// - `changed`: it fails in both, and its verdict, a test's PASS/FAIL or the exception it needs moved;
/// - `unchanged`: the same verdict, the same tests passing and failing, the same exception.
///
/// What got worse (`worse`): every `new`, and a `changed` target whose verdict is graver, a test
/// that passed and now fails, or a key its exception now needs that it did not. `--fail-on new`
/// fails the run on these only. Targets of the baseline that the new run did not audit are
/// listed apart (`absent`): they are neither better nor worse.
public struct BaselineComparison: Sendable {
    public enum State: String, Sendable, CaseIterable {
        case new, fixed, changed, unchanged
    }

    public struct Entry: Sendable {
        public var name: String
        public var state: State
        public var before: AuditVerdict?
        public var after: AuditVerdict
        /// nscurl tests that passed in the baseline and fail now, by title.
        public var nowFailing: [String]
        /// nscurl tests that failed in the baseline and pass now, by title.
        public var nowPassing: [String]
        /// Exception keys (with values) needed now and not before, and the other way round.
        public var keysAdded: [String]
        public var keysRemoved: [String]
        public var worse: Bool
    }

    public let entries: [Entry]
    /// Names in the baseline that the new run has no record of.
    public let absent: [String]

    public var worse: [Entry] { entries.filter(\.worse) }

    /// `old` and `new` are both read in full; `new` keeps its input order.
    public init(old: [AuditRecord], new: [AuditRecord]) {
        var before: [String: AuditRecord] = [:]
        for record in old where before[record.name] == nil { before[record.name] = record }
        var seen: Set<String> = []
        entries = new.sorted(by: AuditRecord.inputOrder).compactMap { record in
            guard seen.insert(record.name).inserted else { return nil }
            return Self.compare(before[record.name], record)
        }
        absent = old.map(\.name).filter { !seen.contains($0) }.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
    }

    /// How grave a verdict is: a higher rank is worse.
    static func rank(_ verdict: AuditVerdict) -> Int {
        switch verdict {
        case .pass: 0
        case .exception: 1
        case .noException: 2
        case .unreachable, .timeout, .error: 3
        }
    }

    static func compare(_ old: AuditRecord?, _ new: AuditRecord) -> Entry {
        let after = new.verdict
        let keysNow = Set(new.exceptionKeys.map { "\($0.key)=\($0.value)" })
        guard let old else {
            let failing = after != .pass
            return Entry(name: new.name, state: failing ? .new : .unchanged, before: nil, after: after,
                         nowFailing: [], nowPassing: [], keysAdded: keysNow.sorted(), keysRemoved: [], worse: failing)
        }
        let before = old.verdict
        let keysThen = Set(old.exceptionKeys.map { "\($0.key)=\($0.value)" })
        let results = Dictionary(old.tests.map { ($0.title, $0.verdict.passed) }, uniquingKeysWith: { first, _ in first })
        let nowFailing = new.tests.filter { !$0.verdict.passed && results[$0.title] == true }.map(\.title)
        let nowPassing = new.tests.filter { $0.verdict.passed && results[$0.title] == false }.map(\.title)
        let keysAdded = keysNow.subtracting(keysThen).sorted(), keysRemoved = keysThen.subtracting(keysNow).sorted()
        let state: State
        switch (before == .pass, after == .pass) {
        case (true, false): state = .new
        case (false, true): state = .fixed
        default:
            let moved = before != after || !nowFailing.isEmpty || !nowPassing.isEmpty || !keysAdded.isEmpty || !keysRemoved.isEmpty
            state = moved ? .changed : .unchanged
        }
        let worse = state == .new || (state == .changed && (rank(after) > rank(before) || !nowFailing.isEmpty || !keysAdded.isEmpty))
        return Entry(name: new.name, state: state, before: before, after: after, nowFailing: nowFailing, nowPassing: nowPassing,
                     keysAdded: keysAdded, keysRemoved: keysRemoved, worse: worse)
    }

    /// The counts in one line: "4 targets: 1 new, 0 fixed, 1 changed, 2 unchanged; 1 got worse".
    public var summary: String {
        let counts = State.allCases.map { state in "\(entries.filter { $0.state == state }.count) \(state.rawValue)" }
        var line = "\(entries.count) target\(entries.count == 1 ? "" : "s"): " + counts.joined(separator: ", ") + "; \(worse.count) got worse"
        if !absent.isEmpty { line += "; \(absent.count) in the baseline not audited" }
        return line
    }

    /// For people: a heading naming the baseline, then one line per target, what moved under it.
    public func text(baseline: String) -> String {
        var out = "Compared with \(ReportEscaping.text(baseline, limit: 300)): \(summary)\n"
        for entry in entries {
            let word = entry.state.rawValue.uppercased() + (entry.worse && entry.state != .new ? " (worse)" : "")
            let padded = word.count >= 12 ? word : word + String(repeating: " ", count: 12 - word.count)
            let verdicts = "\(entry.before?.rawValue ?? "not in the baseline") -> \(entry.after.rawValue)"
            out += "\(padded) \(ReportEscaping.text(entry.name, limit: 300)): \(verdicts)\n"
            if !entry.nowFailing.isEmpty { out += "    now fails: \(entry.nowFailing.map { ReportEscaping.text($0, limit: 200) }.joined(separator: ", "))\n" }
            if !entry.nowPassing.isEmpty { out += "    now passes: \(entry.nowPassing.map { ReportEscaping.text($0, limit: 200) }.joined(separator: ", "))\n" }
            if !entry.keysAdded.isEmpty { out += "    exception now needs: \(entry.keysAdded.map { ReportEscaping.text($0, limit: 200) }.joined(separator: ", "))\n" }
            if !entry.keysRemoved.isEmpty { out += "    exception no longer needs: \(entry.keysRemoved.map { ReportEscaping.text($0, limit: 200) }.joined(separator: ", "))\n" }
        }
        for name in absent { out += "ABSENT       \(ReportEscaping.text(name, limit: 300)): in the baseline, not audited this time\n" }
        return out
    }
}
