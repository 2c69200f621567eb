import ATSContract
import ATSFiles
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport
import TLSFacts

/// An audit compared with an earlier one (`audit --baseline OLD`, `report --diff OLD NEW`), the
/// one comparison both make: each side read as `Side`s (`RunRecords.sides`, streamed; a live
/// audit keeps a `Side` per finished target, never the record), each target of the new run
/// matched to the old run's by its name (the URL; a bad input line by its text, apart from the
/// targets), marked
///
/// - `new`: not in the baseline (worse when it fails);
/// - `regressed`: in the baseline, and worse now: a graver verdict ("no exception helps" after
///   "exception", a pass that now fails), a test that passed and now fails, or a key its
///   exception now needs that it did not;
/// - `fixed`: it passes now and failed before;
/// - `changed`: something moved (a test, a key, the verdict) and nothing got worse;
/// - `unchanged`: the same verdict, the same tests passing and failing, the same exception;
/// - `accepted`: it moved, and `--accept` takes its new state as the baseline's.
///
/// What got worse (`worse`): every `regressed`, and a failing `new`. Targets of the baseline
/// that the new run did not audit are listed apart (`absent`); `--fail-on absent` fails on them.
/// A name held twice on either side is refused before this is built (`RunRecords`).
/// Both sides must be comparable (`Comparability`): the caller refuses them unless told to
/// compare anyway, and then every output says so first (`notComparable`).
package struct BaselineComparison: Sendable {
    package enum State: String, Sendable, CaseIterable {
        case regressed, new, fixed, changed, unchanged, accepted
    }

    package struct Entry: Sendable {
        package var name: String
        package var state: State
        package var before: AuditVerdict?
        package var after: AuditVerdict
        /// nscurl tests that passed in the baseline and fail now, by title.
        package var nowFailing: [String]
        /// nscurl tests that failed in the baseline and pass now, by title.
        package var nowPassing: [String]
        /// Exception keys (with values) needed now and not before, and the other way round.
        package var keysAdded: [String]
        package var keysRemoved: [String]
        package var worse: Bool
        /// The new run's reason in one sentence (nil for a pass), and the baseline's.
        package var reason: String? = nil
        package var reasonBefore: String? = nil
        /// The input line that named the target in the new run (nil for an argument).
        package var line: Int? = nil
    }

    /// What the comparison reads of one record: its name, verdict, tests' outcomes, exception
    /// keys and reason: a few hundred bytes where the record holds tens of KB (the target's
    /// probes, certificates, advice). A compact baseline (`report --baseline-of`) is these, one
    /// a line (`CompactBaseline`).
    package struct Side: Sendable, Codable, Equatable {
        package struct Test: Sendable, Codable, Equatable {
            package var title: String
            package var passed: Bool
        }

        package var name: String
        package var input: String?
        package var line: Int?
        package var verdict: AuditVerdict
        package var tests: [Test]
        /// The exception's keys as `KEY=VALUE`.
        package var keys: [String]
        package var reason: String?
        /// `--fail-on expiring:`: seconds from the forecast's start until it loads worse (nil: not
        /// within its horizon), and the horizon (nil: not forecast). Not kept in a baseline.
        package var secondsUntilWorse: Int?
        package var forecastHorizon: Int?

        private enum CodingKeys: String, CodingKey { case name, input, line, verdict, tests, keys, reason }

        package init(_ record: AuditRecord) {
            name = record.name
            input = record.input
            line = record.line
            verdict = record.verdict
            tests = record.tests.map { Test(title: $0.title, passed: $0.verdict.passed) }
            keys = record.exceptionKeys.map { "\($0.key)=\($0.value)" }
            reason = record.reason
            secondsUntilWorse = ReportForecast.secondsUntilWorse(record)
            forecastHorizon = record.document?.forecastWindow?.horizonSeconds
        }

        /// What matches it to the other run's side (`AuditRecord.identity`): a target by its URL, a
        /// bad input line (verdict `error`, no target) by its text, never one for the other.
        package var identity: AuditRecord.Identity { verdict == .error ? .badLine(text: input ?? "") : .target(url: name) }

        /// `AuditRecord.inputOrder`, on what a side keeps.
        static func inputOrder(_ a: Side, _ b: Side) -> Bool {
            ((a.line ?? 0), a.input ?? a.name) < ((b.line ?? 0), b.input ?? b.name)
        }

        /// `--fail-on expiring:DURATION` (report, report --diff): whether a judged target (pass,
        /// exception, no-exception) loads worse within `seconds` of its forecast's start. Records
        /// forecast less far ahead (or not at all) cannot tell: bad input naming what it takes.
        package static func worsens(_ sides: [Side], within seconds: Int) throws -> Bool {
            let judged = sides.filter { [.pass, .exception, .noException].contains($0.verdict) }
            if let short = judged.first(where: { ($0.forecastHorizon ?? 0) < seconds }) {
                let horizon = short.forecastHorizon.map { "a forecast of \($0) s" } ?? "no forecast"
                throw InputError(.badArgument, "--fail-on expiring:\(seconds)s reads the run's forecast, and '\(UntrustedText.escape(short.name, limit: 300))' has \(horizon): "
                                 + "record the run with audit --forecast \(seconds)s (or more)")
            }
            return judged.contains { ($0.secondsUntilWorse ?? Int.max) <= seconds }
        }

        /// Whether `target` (as given to `--accept`: the URL, or the input line's text) names it.
        func named(_ target: String) -> Bool { name == target || input == target }
    }

    package let entries: [Entry]
    /// Names in the baseline that the new run has no record of.
    package let absent: [String]
    /// `--compare-anyway`: how the two runs differ (`Comparability.differences`); empty when
    /// they are comparable. Every format says it before anything else.
    package var notComparable: [String] = []

    package var worse: [Entry] { entries.filter(\.worse) }

    /// `old` and `new` as `RunRecords.sides` reads them; `new` keeps its input order. Each name is
    /// held once on each side (`RunRecords` refuses a file that holds one twice); were one held
    /// twice, the graver record would stand, so that a duplicate never hides a regression.
    /// `accepted`: `--accept` (URLs or input lines): each such target's new state is taken as
    /// its baseline (`accepted`, never worse), and an absent one as removed on purpose.
    package init(old: [Side], new: [Side], accepted: [String] = []) {
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
        entries = order.compactMap { key in
            guard let side = now[key] else { return nil }
            var entry = Self.compare(before[key], side)
            if entry.state != .unchanged, accepted.contains(where: side.named) {
                entry.state = .accepted
                entry.worse = false
            }
            return entry
        }
        var listed: Set<AuditRecord.Identity> = []
        absent = old.filter { side in now[side.identity] == nil && !accepted.contains(where: side.named) && listed.insert(side.identity).inserted }
            .map(\.name)
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
    package static func words(_ verdict: AuditVerdict?) -> String {
        guard let verdict else { return "not in the baseline" }
        return verdict == .noException ? "no exception helps" : verdict.rawValue
    }

    /// One thing that moved under a target: atsprobe's words, then the untrusted items (test
    /// titles, keys, the server's reason), which each format escapes its own way.
    package struct Detail: Sendable {
        package var label: String
        package var items: [String]
    }

    /// What moved under a target (text, Markdown, JUnit and SARIF say the same).
    package static func details(_ entry: Entry) -> [Detail] {
        var lines: [Detail] = []
        if !entry.nowFailing.isEmpty { lines.append(.init(label: "now fails", items: entry.nowFailing)) }
        if !entry.nowPassing.isEmpty { lines.append(.init(label: "now passes", items: entry.nowPassing)) }
        if entry.after == .noException, entry.before == .exception {
            lines.append(.init(label: "no exception helps now; it needed", items: entry.keysRemoved.isEmpty ? ["the same keys"] : entry.keysRemoved))
        } else {
            if !entry.keysAdded.isEmpty { lines.append(.init(label: "exception now needs", items: entry.keysAdded)) }
            if !entry.keysRemoved.isEmpty { lines.append(.init(label: "exception no longer needs", items: entry.keysRemoved)) }
        }
        if entry.state != .unchanged, let reason = entry.reason, reason != entry.reasonBefore {
            lines.append(.init(label: "reason now", items: [reason]))
        }
        return lines
    }

    /// A detail as plain text: each item escaped (`ReportEscaping.text`).
    package static func text(_ detail: Detail) -> String {
        let limit = detail.label == "reason now" ? 300 : 200
        return "\(detail.label): " + detail.items.map { ReportEscaping.text($0, limit: limit) }.joined(separator: ", ")
    }

    /// The counts in one line: "4 targets: 1 new, 0 fixed, 1 changed, 2 unchanged; 1 got worse".
    package var summary: String {
        let counts = State.allCases.filter { $0 != .accepted || entries.contains { $0.state == .accepted } }
            .map { state in "\(entries.filter { $0.state == state }.count) \(state.rawValue)" }
        var line = "\(entries.count) target\(entries.count == 1 ? "" : "s"): " + counts.joined(separator: ", ") + "; \(worse.count) got worse"
        if !absent.isEmpty { line += "; \(absent.count) in the baseline not audited" }
        return line
    }

    /// The line every format leads with under `--compare-anyway` (nil when comparable).
    package var notComparableLine: String? {
        guard !notComparable.isEmpty else { return nil }
        return "NOT COMPARABLE, compared anyway (--compare-anyway): " + notComparable.map { ReportEscaping.text($0, limit: 600) }.joined(separator: "; ")
    }

    /// For people: a heading naming the baseline, what got worse first, then every other target
    /// in input order, what moved under each.
    package func text(baseline: String) -> String {
        var out = notComparableLine.map { $0 + "\n" } ?? ""
        out += "Compared with \(ReportEscaping.text(baseline, limit: 300)): \(summary)\n"
        for entry in worse + entries.filter({ !$0.worse }) {
            let word = entry.state.rawValue.uppercased() + (entry.worse && entry.state == .new ? " (fails)" : "")
            let padded = word.count >= 12 ? word : word + String(repeating: " ", count: 12 - word.count)
            let verdicts = "\(Self.words(entry.before)) -> \(Self.words(entry.after))"
            out += "\(padded) \(ReportEscaping.text(entry.name, limit: 300)): \(verdicts)\n"
            for detail in Self.details(entry) { out += "    \(Self.text(detail))\n" }
        }
        for name in absent { out += "ABSENT       \(ReportEscaping.text(name, limit: 300)): in the baseline, not audited this time\n" }
        return out
    }
}

/// Whether a baseline and a run can be compared (issue 42): the same rule set, the same asked
/// instant (`--at`) or none, the baseline not started after the run, the same anchors (by
/// content: `run.anchorsDigest`; the `trustStore` line for records that predate it), the same
/// CT log list, and the same other options that change a verdict (`run.verdictOptions`). A
/// side that records no `run` (a hand-written record) is compared on what it holds.
package enum Comparability {
    /// Each difference in one phrase, baseline first ("the rule set: the baseline's documented,
    /// this run's ios26"); empty when the two are comparable.
    package static func differences(baseline old: RunInfo?, run new: RunInfo?) -> [String] {
        guard let old, let new else { return [] }
        var out: [String] = []
        if old.ruleSet != new.ruleSet {
            out.append("the rule set: the baseline's \(old.ruleSet ?? "none"), this run's \(new.ruleSet ?? "none") (--rules)")
        }
        if old.judgedAt != new.judgedAt {
            let said = { (run: RunInfo) in run.judgedAt.map { "\(RequestedInstant.iso($0)) (--at)" } ?? "when it ran" }
            out.append("the instant certificates are judged at: the baseline's \(said(old)), this run's \(said(new))")
        }
        if old.startedAt > new.startedAt {
            out.append("the order: the baseline started at \(RequestedInstant.iso(old.startedAt)), after this run (\(RequestedInstant.iso(new.startedAt))); give the earlier run as the baseline")
        }
        if let a = old.anchorsDigest, let b = new.anchorsDigest {
            if a != b { out.append("the anchors: the baseline's trust store holds other roots (\(short(a)), this run's \(short(b)); --ca-file, --ca-dir, --trust-store)") }
        } else if anchorPart(old.trustStore) != anchorPart(new.trustStore) {
            out.append("the anchors: the baseline's \(anchorPart(old.trustStore)), this run's \(anchorPart(new.trustStore))")
        }
        if old.ctLogList != new.ctLogList {
            out.append("the CT log list: the baseline's \(old.ctLogList ?? "none"), this run's \(new.ctLogList ?? "none") (--ct-log-list)")
        }
        if let a = old.verdictOptions, let b = new.verdictOptions, flags(a) != flags(b) {
            let said = { (flags: [String]) in flags.isEmpty ? "none" : flags.joined(separator: " ") }
            out.append("the options that change a verdict: the baseline's \(said(flags(a))), this run's \(said(flags(b)))")
        }
        return out
    }

    /// The one line a refusal says (exit 64): what differs and the command that records a
    /// comparable baseline, with this run's options.
    package static func refusal(_ differences: [String], baseline: String, run new: RunInfo?) -> String {
        "\(ReportEscaping.text(baseline, limit: 300)) is not comparable with this run: " + differences.joined(separator: "; ")
            + ". Record a comparable baseline with this run's options: \(recordCommand(baseline: baseline, run: new))"
            + " (or give --compare-anyway to compare them all the same)"
    }

    /// `atsprobe audit --input FILE OPTIONS --records BASELINE`: the run's input and verdict
    /// options as it recorded them (its rule set and instant for records that predate
    /// `verdictOptions`).
    package static func recordCommand(baseline: String, run: RunInfo?) -> String {
        var words = ["atsprobe", "audit", "--input", run?.input ?? "TARGETS"]
        if let options = run?.verdictOptions {
            words += options
        } else {
            if let ruleSet = run?.ruleSet { words += ["--rules", ruleSet] }
            if let at = run?.judgedAt { words += ["--at", RequestedInstant.iso(at)] }
        }
        words += ["--records", baseline]
        return words.map { ShellWord.quoted(UntrustedText.escape($0, limit: 300)) }.joined(separator: " ")
    }

    /// The options compared as flags: the ones the other fields stand for (the rule set, the
    /// instant, the anchors and CT log list, compared by content) left out.
    static func flags(_ options: [String]) -> [String] {
        var out: [String] = []
        var index = 0
        let valued: Set<String> = ["--rules", "--at", "--trust-store", "--ca-file", "--ca-dir", "--ct-log-list"]
        while index < options.count {
            if valued.contains(options[index]) { index += 2; continue }
            out.append(options[index])
            index += 1
        }
        return out
    }

    static func short(_ digest: String) -> String { String(digest.prefix(19)) + "…" }

    /// `run.trustStore` without the other trust data after "; " (the pinning list and suffix list versions).
    static func anchorPart(_ trustStore: String?) -> String {
        guard let trustStore else { return "none" }
        return trustStore.split(separator: ";", maxSplits: 1).first.map(String.init) ?? trustStore
    }
}

/// A word as a POSIX shell reads it: as it is when it holds only safe characters, else in
/// single quotes (a quote inside as '\'').
package enum ShellWord {
    package static func quoted(_ word: String) -> String {
        let safe = word.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_./:=+@,%".contains($0)) }
        if safe && !word.isEmpty { return word }
        return "'" + word.replacing("'", with: "'\\''") + "'"
    }
}
