import ATSContract
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport
import TLSFacts

/// `report --diff OLD NEW --format F` and `audit --baseline OLD` in every format a CI reads
/// (docs/reports.md, "Baselines"): text (`BaselineComparison.text`), JSON, Markdown (a
/// pull-request comment that leads with what got worse), JUnit (a testcase per target, failing
/// when it got worse) and SARIF (a result per target that got worse, at the `--input` line that
/// named it). Each says the same: the state (REGRESSED, NEW, FIXED, CHANGED, UNCHANGED,
/// ABSENT), the verdicts, the tests that moved and the new reason (`BaselineComparison.details`).
extension BaselineComparison {
    /// The JSON document (docs/json-schema.md, "Comparison").
    package struct JSONDocument: Codable, Sendable {
        package var kind = "comparison"
        package var schemaVersion = 1
        package var baseline: String
        package var summary: String
        package var counts: [String: Int]
        package var worse: Int
        package var targets: [Target]
        package var absent: [String]
        /// `--compare-anyway`: how the two runs differ (absent when they are comparable).
        package var notComparable: [String]?

        package struct Target: Codable, Sendable {
            package var name: String
            package var state: String
            package var worse: Bool
            package var before: AuditVerdict?
            package var after: AuditVerdict
            package var line: Int?
            package var nowFailing: [String]
            package var nowPassing: [String]
            package var keysAdded: [String]
            package var keysRemoved: [String]
            package var reason: String?
            package var reasonBefore: String?
        }
    }

    package func jsonDocument(baseline: String) -> JSONDocument {
        var counts = Dictionary(uniqueKeysWithValues: State.allCases.map { state in (state.rawValue, entries.filter { $0.state == state }.count) })
        counts["absent"] = absent.count
        return JSONDocument(baseline: baseline, summary: summary, counts: counts, worse: worse.count, targets: entries.map {
            .init(name: $0.name, state: $0.state.rawValue, worse: $0.worse, before: $0.before, after: $0.after, line: $0.line,
                  nowFailing: $0.nowFailing, nowPassing: $0.nowPassing, keysAdded: $0.keysAdded, keysRemoved: $0.keysRemoved,
                  reason: $0.reason, reasonBefore: $0.reasonBefore)
        }, absent: absent, notComparable: notComparable.isEmpty ? nil : notComparable)
    }

    package func json(baseline: String) -> String {
        // Plain Codable values: encoding cannot fail.
        ((try? JSONEncoder.atsprobe().encode(jsonDocument(baseline: baseline))).map { String(decoding: $0, as: UTF8.self) } ?? "") + "\n"
    }

    /// A pull-request comment: the verdict in its heading, what got worse first (each with what
    /// moved), then fixed, new, changed, accepted; unchanged folded; absent last. Under
    /// `--compare-anyway` its first line says the runs are not comparable and how. Every name,
    /// test title, key and reason (from a server, the input or a record) is a code span
    /// (`ReportEscaping.markdown`): nothing a server sends is live Markdown. Within GitHub's
    /// comment limit (ReportMarkdown.commentLimit): sections past it are cut with a line saying so.
    package func markdown(baseline: String) -> String {
        let md = { (text: String) in ReportEscaping.markdown(text) }
        var out = ""
        if !notComparable.isEmpty {
            out += "> **Not comparable: compared anyway** (`--compare-anyway`): " + notComparable.map(md).joined(separator: "; ") + "\n\n"
        }
        out += worse.isEmpty ? "## ATS: nothing got worse\n\n" : "## ATS: \(worse.count) target\(worse.count == 1 ? "" : "s") got worse\n\n"
        out += "Compared with \(md(baseline)): \(summary).\n"
        func section(_ title: String, _ items: [Entry]) {
            guard !items.isEmpty else { return }
            out += "\n### \(title)\n\n"
            for entry in items {
                out += "- **\(entry.state.rawValue.uppercased())** \(md(entry.name)): "
                    + "\(Self.words(entry.before)) → \(Self.words(entry.after))\n"
                for detail in Self.details(entry) { out += "  - \(detail.label): \(detail.items.map(md).joined(separator: ", "))\n" }
            }
        }
        section("Got worse", worse)
        section("Fixed", entries.filter { $0.state == .fixed })
        section("New, passing", entries.filter { $0.state == .new && !$0.worse })
        section("Changed, not worse", entries.filter { $0.state == .changed })
        section("Accepted (--accept)", entries.filter { $0.state == .accepted })
        let unchanged = entries.filter { $0.state == .unchanged }
        if !unchanged.isEmpty {
            out += "\n<details><summary>\(unchanged.count) unchanged</summary>\n\n"
            out += unchanged.map { "- \(md($0.name)): \(Self.words($0.after))\n" }.joined()
            out += "\n</details>\n"
        }
        if !absent.isEmpty {
            out += "\n### Absent (in the baseline, not audited this time)\n\n"
            out += absent.map { "- \(md($0))\n" }.joined()
        }
        let limit = ReportMarkdown.commentLimit - 200
        guard out.utf8.count > limit else { return out }
        var cut = String(decoding: out.utf8.prefix(limit), as: UTF8.self)
        if let newline = cut.lastIndex(of: "\n") { cut = String(cut[...newline]) }
        return cut + "\nThe rest is left out to fit a pull-request comment: `atsprobe report --diff` with `--format text` has it all.\n"
    }

    /// One testcase per target of the new run (named by its URL), failing when it got worse;
    /// a baseline target not audited is skipped.
    package func junit() -> String {
        var cases = ""
        var failures = 0
        for entry in entries {
            var outcome: ReportJUnit.Outcome?
            if entry.worse {
                failures += 1
                let details = Self.details(entry).map(Self.text)
                outcome = .init(tag: "failure", message: "\(entry.state.rawValue): \(Self.words(entry.before)) -> \(Self.words(entry.after))",
                                type: "baseline/\(entry.state.rawValue)", text: details.joined(separator: "\n"))
            }
            let said = "\(entry.state.rawValue.uppercased()): \(Self.words(entry.before)) -> \(Self.words(entry.after))"
            cases += ReportJUnit.testcase(name: entry.name, classname: "atsprobe." + ReportJUnit.classPart(entry.name), milliseconds: 0,
                                          outcome: outcome, systemOut: ([said] + Self.details(entry).map(Self.text)).joined(separator: "\n"))
        }
        for name in absent {
            cases += "    <testcase name=\"\(ReportEscaping.xml(name, limit: 1000))\" classname=\"atsprobe.\(ReportEscaping.xml(ReportJUnit.classPart(name), limit: 1000))\" time=\"0.000\">\n"
                + "      <skipped message=\"in the baseline, not audited this time\"/>\n    </testcase>\n"
        }
        var skipped = absent.count
        // --compare-anyway: a skipped testcase first says the runs are not comparable, seen in
        // every JUnit reader without failing the build (the step's exit status gates).
        if let line = notComparableLine {
            skipped += 1
            cases = "    <testcase name=\"baseline is comparable\" classname=\"atsprobe.baseline\" time=\"0.000\">\n"
                + "      <skipped message=\"\(ReportEscaping.xml(line, limit: 4000))\"/>\n    </testcase>\n" + cases
        }
        let count = entries.count + skipped
        let suite = "  <testsuite name=\"atsprobe baseline\" tests=\"\(count)\" failures=\"\(failures)\" errors=\"0\" skipped=\"\(skipped)\" time=\"0.000\">\n"
            + cases + "  </testsuite>\n"
        return ReportJUnit.document(suite, tests: count, failures: failures, errors: 0, milliseconds: 0)
    }

    /// A result per target that got worse (rule `baseline/regressed` or `baseline/new`), at the
    /// `--input` file's line that named it when the run had one (`input`, repository-relative),
    /// else at its URL; the URL is in the message.
    package func sarif(input: String?, toolVersion: String?) -> SARIFLog {
        var findings: [SARIFFinding] = []
        for entry in worse {
            let message = "\(ReportEscaping.text(entry.name, limit: 300)) \(entry.state == .new ? "is new and fails" : "got worse"): "
                + "\(Self.words(entry.before)) -> \(Self.words(entry.after))"
                + Self.details(entry).map { "; \(Self.text($0))" }.joined()
            findings.append(.init(rule: "baseline/\(entry.state.rawValue)", level: .error, message: message,
                                  place: ReportSARIF.place(url: entry.name, input: input, line: entry.line),
                                  fingerprint: ReportSARIF.fingerprint(["baseline", entry.state.rawValue, entry.name])))
        }
        let used = Set(findings.map(\.rule))
        // Described by SARIFRules (fullDescription, help, helpUri, security-severity) in `log`.
        let rules = ["baseline/regressed", "baseline/new"].filter(used.contains).map {
            SARIFLog.Rule(id: $0, defaultConfiguration: .init(level: .error))
        }
        var log = ReportSARIF.log(findings, rules: rules, toolVersion: toolVersion)
        if let line = notComparableLine { log.notify(line) }
        return log
    }
}

/// `report --diff OLD NEW`'s result: the comparison with what its formats name besides it (the
/// baseline's path; NEW's input file and tool version, where SARIF places the results).
package struct ComparisonOutput: RenderedResult {
    package var comparison: BaselineComparison
    package var baselinePath: String
    package var input: String?
    package var toolVersion: String?

    package init(_ comparison: BaselineComparison, baselinePath: String, input: String?, toolVersion: String?) {
        self.comparison = comparison
        self.baselinePath = baselinePath
        self.input = input
        self.toolVersion = toolVersion
    }

    package static let outputs = OutputRegistry<ComparisonOutput>([
        .text: { out, _ in Rendered(out.comparison.text(baseline: out.baselinePath)) },
        .json: { out, _ in Rendered(out.comparison.json(baseline: out.baselinePath)) },
        .markdown: { out, _ in Rendered(out.comparison.markdown(baseline: out.baselinePath)) },
        .junit: { out, _ in Rendered(out.comparison.junit()) },
        .sarif: { out, options in .sarif(out.comparison.sarif(input: out.input, toolVersion: out.toolVersion), category: options.sarifCategory) },
    ])
}
