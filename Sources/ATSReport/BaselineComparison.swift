import ATSEngine
import TLSFacts

/// An audit compared with an earlier one (`audit --baseline OLD.jsonl`, `report --diff OLD NEW`):
/// each target of the new run, matched to the old run's record by its identity (the URL; the input
/// line's text for a line that never became a target, which never matches a URL:
/// `AuditRecord.identity`), marked
///
/// - `new`: not in the baseline (worse when it fails);
/// - `regressed`: in the baseline, and worse now: a graver verdict ("no exception helps" after
///   "exception", a pass that now fails), a test that passed and now fails, or a key its
///   exception now needs that it did not;
/// - `fixed`: it passes now and failed before;
/// - `changed`: something moved (a test, a key, the verdict) and nothing got worse;
/// - `unchanged`: the same verdict, the same tests passing and failing, the same exception.
///
/// What got worse (`worse`): every `regressed`, and a failing `new`. `--fail-on new` fails the
/// run on these only. Targets of the baseline that the new run did not audit are listed apart
/// (`absent`): they are neither better nor worse. A name held twice on either side is refused
/// before this is built (`RunRecords`).
public struct BaselineComparison: Sendable {
    public enum State: String, Sendable, CaseIterable {
        case regressed, new, fixed, changed, unchanged
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
        /// The new run's reason in one sentence (nil for a pass), and the baseline's.
        public var reason: String? = nil
        public var reasonBefore: String? = nil
        /// The input line that named the target in the new run (nil for an argument).
        public var line: Int? = nil
    }

    /// What the comparison reads of one record: its name, verdict, tests' outcomes, exception
    /// keys and reason: a few hundred bytes where the record holds tens of KB (the target's
    /// probes, certificates, advice), so a 20,000-target diff keeps only these (`RunRecords.sides`).
    public struct Side: Sendable {
        public struct Test: Sendable {
            public var title: String
            public var passed: Bool
        }

        public var name: String
        /// What matches it to the other run's record (`AuditRecord.identity`).
        public var identity: AuditRecord.Identity
        public var input: String?
        public var line: Int?
        public var verdict: AuditVerdict
        public var tests: [Test]
        /// The exception's keys as `KEY=VALUE`.
        public var keys: [String]
        public var reason: String?

        public init(_ record: AuditRecord) {
            name = record.name
            identity = record.identity
            input = record.input
            line = record.line
            verdict = record.verdict
            tests = record.tests.map { Test(title: $0.title, passed: $0.verdict.passed) }
            keys = record.exceptionKeys.map { "\($0.key)=\($0.value)" }
            reason = record.reason
        }

        /// `AuditRecord.inputOrder`, on what a side keeps.
        static func inputOrder(_ a: Side, _ b: Side) -> Bool {
            ((a.line ?? 0), a.input ?? a.name) < ((b.line ?? 0), b.input ?? b.name)
        }
    }

    public let entries: [Entry]
    /// Names in the baseline that the new run has no record of.
    public let absent: [String]

    public var worse: [Entry] { entries.filter(\.worse) }

    /// `old` and `new` are both read in full; `new` keeps its input order. Each name is held once
    /// on each side (`RunRecords` refuses a file that holds one twice); were one held twice, the
    /// graver record would stand, so that a duplicate never hides a regression.
    public init(old: [AuditRecord], new: [AuditRecord]) {
        self.init(old: old.map(Side.init), new: new.map(Side.init))
    }

    /// As `init(old:new:)` on records, on what the comparison reads of them.
    public init(old: [Side], new: [Side]) {
        var before: [AuditRecord.Identity: Side] = [:]
        for record in old {
            if let held = before[record.identity], Self.rank(held.verdict) >= Self.rank(record.verdict) { continue }
            before[record.identity] = record
        }
        var now: [AuditRecord.Identity: Side] = [:]
        var order: [AuditRecord.Identity] = []
        for record in new.sorted(by: Side.inputOrder) {
            if let held = now[record.identity] {
                if Self.rank(held.verdict) < Self.rank(record.verdict) { now[record.identity] = record }
                continue
            }
            now[record.identity] = record
            order.append(record.identity)
        }
        entries = order.compactMap { key in now[key].map { Self.compare(before[key], $0) } }
        var listed: Set<AuditRecord.Identity> = []
        absent = old.filter { now[$0.identity] == nil && listed.insert($0.identity).inserted }.map(\.name)
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

    static func compare(_ old: Side?, _ new: Side) -> Entry {
        let after = new.verdict
        let keysNow = Set(new.keys)
        guard let old else {
            let failing = after != .pass
            return Entry(name: new.name, state: .new, before: nil, after: after, nowFailing: [], nowPassing: [],
                         keysAdded: keysNow.sorted(), keysRemoved: [], worse: failing, reason: new.reason, line: new.line)
        }
        let before = old.verdict
        let keysThen = Set(old.keys)
        let results = Dictionary(old.tests.map { ($0.title, $0.passed) }, uniquingKeysWith: { first, _ in first })
        let nowFailing = new.tests.filter { !$0.passed && results[$0.title] == true }.map(\.title)
        let nowPassing = new.tests.filter { $0.passed && results[$0.title] == false }.map(\.title)
        let keysAdded = keysNow.subtracting(keysThen).sorted(), keysRemoved = keysThen.subtracting(keysNow).sorted()
        let graver = rank(after) > rank(before)
        // Keys added count as worse between two exceptions only: "no exception helps" is graver
        // already, and an exception that now helps where none did is better, whatever its keys.
        let worse = graver || !nowFailing.isEmpty || (before == .exception && after == .exception && !keysAdded.isEmpty)
        let state: State
        if worse {
            state = .regressed
        } else if before != .pass && after == .pass {
            state = .fixed
        } else {
            let moved = before != after || !nowFailing.isEmpty || !nowPassing.isEmpty || !keysAdded.isEmpty || !keysRemoved.isEmpty
            state = moved ? .changed : .unchanged
        }
        return Entry(name: new.name, state: state, before: before, after: after, nowFailing: nowFailing, nowPassing: nowPassing,
                     keysAdded: keysAdded, keysRemoved: keysRemoved, worse: worse, reason: new.reason, reasonBefore: old.reason,
                     line: new.line)
    }

    /// How a verdict reads in a diff: "no exception helps" rather than the JSON's noException.
    public static func words(_ verdict: AuditVerdict?) -> String {
        guard let verdict else { return "not in the baseline" }
        return verdict == .noException ? "no exception helps" : verdict.rawValue
    }

    /// What moved under a target, one phrase per line (text, Markdown, JUnit and SARIF say the same).
    public static func details(_ entry: Entry) -> [String] {
        var lines: [String] = []
        let list = { (items: [String]) in items.map { ReportEscaping.text($0, limit: 200) }.joined(separator: ", ") }
        if !entry.nowFailing.isEmpty { lines.append("now fails: \(list(entry.nowFailing))") }
        if !entry.nowPassing.isEmpty { lines.append("now passes: \(list(entry.nowPassing))") }
        if entry.after == .noException, entry.before == .exception {
            lines.append("no exception helps now (it needed: \(list(entry.keysRemoved.isEmpty ? ["the same keys"] : entry.keysRemoved)))")
        } else {
            if !entry.keysAdded.isEmpty { lines.append("exception now needs: \(list(entry.keysAdded))") }
            if !entry.keysRemoved.isEmpty { lines.append("exception no longer needs: \(list(entry.keysRemoved))") }
        }
        if entry.state != .unchanged, let reason = entry.reason, reason != entry.reasonBefore {
            lines.append("reason now: \(ReportEscaping.text(reason, limit: 300))")
        }
        return lines
    }

    /// The counts in one line: "4 targets: 1 new, 0 fixed, 1 changed, 2 unchanged; 1 got worse".
    public var summary: String {
        let counts = State.allCases.map { state in "\(entries.filter { $0.state == state }.count) \(state.rawValue)" }
        var line = "\(entries.count) target\(entries.count == 1 ? "" : "s"): " + counts.joined(separator: ", ") + "; \(worse.count) got worse"
        if !absent.isEmpty { line += "; \(absent.count) in the baseline not audited" }
        return line
    }

    /// For people: a heading naming the baseline, what got worse first, then every other target
    /// in input order, what moved under each.
    public func text(baseline: String) -> String {
        var out = "Compared with \(ReportEscaping.text(baseline, limit: 300)): \(summary)\n"
        for entry in worse + entries.filter({ !$0.worse }) {
            let word = entry.state.rawValue.uppercased() + (entry.worse && entry.state == .new ? " (fails)" : "")
            let padded = word.count >= 12 ? word : word + String(repeating: " ", count: 12 - word.count)
            let verdicts = "\(Self.words(entry.before)) -> \(Self.words(entry.after))"
            out += "\(padded) \(ReportEscaping.text(entry.name, limit: 300)): \(verdicts)\n"
            for line in Self.details(entry) { out += "    \(line)\n" }
        }
        for name in absent { out += "ABSENT       \(ReportEscaping.text(name, limit: 300)): in the baseline, not audited this time\n" }
        return out
    }
}
