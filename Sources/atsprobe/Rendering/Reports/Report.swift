import ATSEngine
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts

/// Everything a report shows: the targets in input order, the counts and the run's metadata.
/// Built from decoded records only (`ReportRecord`), by a live run or by `atsprobe report`.
struct Report {
    let records: [ReportRecord]
    let tally: AuditTally
    let run: RunInfo?
    /// The run's end: the latest record's finishedAt.
    let endedAt: Date?

    init(_ records: [ReportRecord]) {
        self.records = records.sorted(by: ReportRecord.inputOrder)
        var tally = AuditTally()
        for record in records { tally.add(record.verdict, keys: record.exceptionKeys.map(\.key)) }
        self.tally = tally
        run = records.lazy.compactMap(\.run).first
        endedAt = records.compactMap(\.finishedAt).max()
    }

    /// nscurl's 16 test titles, in order, from the first record that has them all.
    var testTitles: [String] {
        records.first { $0.tests.count == 16 }?.tests.map(\.title) ?? []
    }

    /// The run's metadata as label/value rows, for every format.
    var metadataRows: [(String, String)] {
        var rows: [(String, String)] = []
        if let run {
            rows.append(("Tool", "\(run.tool) \(run.toolVersion)"))
            rows.append(("OpenSSL", run.openSSLVersion))
            rows.append(("Rule set", run.ruleSet ?? "none"))
            if let trustStore = run.trustStore { rows.append(("Trust store", trustStore)) }
            if let ctLogList = run.ctLogList { rows.append(("CT log list", ctLogList)) }
            rows.append(("Started", Report.iso(run.startedAt)))
        }
        if let endedAt { rows.append(("Ended", Report.iso(endedAt))) }
        rows.append(("Targets", tally.line))
        return rows
    }

    static func iso(_ date: Date) -> String { date.formatted(.iso8601) }

    func render(_ format: OutputFormat, verbose: Bool) -> String {
        switch format {
        case .html: ReportHTML.render(self)
        case .csv: ReportCSV.render(self)
        case .markdown: ReportMarkdown.render(self)
        default: records.map { ReportText.entry($0, verbose: verbose, palette: Palette(enabled: false)) }.joined()
        }
    }
}

/// `audit`'s text: one line per target with its verdict, the exception's keys and values, and
/// the reason in one sentence; --verbose adds every test's dictionary and error under it.
enum ReportText {
    static func entry(_ record: ReportRecord, verbose: Bool, palette: Palette) -> String {
        var out = line(record, palette: palette) + "\n"
        if verbose { out += details(record) }
        return out
    }

    static func line(_ record: ReportRecord, palette: Palette) -> String {
        let word = record.verdict.rawValue.uppercased().padded(to: 12)
        let verdict = switch record.verdict {
        case .pass: palette.pass(word)
        case .exception: palette.warn(word)
        default: palette.fail(word)
        }
        var text = "\(verdict) \(UntrustedText.escape(record.name, limit: 300))"
        switch record.verdict {
        case .pass:
            text += ": default ATS loads it"
        case .exception:
            let keys = record.exceptionKeys.map { "\($0.key)=\($0.value)" }.joined(separator: ", ")
            text += ": needs \(keys)"
            if let reason = record.reason { text += ", because \(UntrustedText.escape(reason))" }
        case .noException:
            text += ": no exception helps: \(UntrustedText.escape(record.reason ?? "no reason recorded"))"
        case .error:
            let place = record.line.map { "line \($0)" } ?? "argument"
            text += " (\(place): \(UntrustedText.escape(record.reason ?? "")))"
        case .unreachable, .timeout:
            text += ": \(UntrustedText.escape(record.reason ?? "no reason recorded"))"
        }
        return text
    }

    /// Every test: result, dictionary and, on failure, the error and each reason.
    static func details(_ record: ReportRecord) -> String {
        var out = ""
        for test in record.tests {
            out += "    \(test.verdict.passed ? "PASS" : "FAIL") \(UntrustedText.escape(test.title))"
            if let dictionary = test.dictionary { out += "  \(UntrustedText.escape(dictionary.plistText))" }
            out += "\n"
            guard !test.verdict.passed else { continue }
            if let error = test.verdict.error { out += "      error: \(UntrustedText.escape(error.nscurlDescription))\n" }
            for reason in test.verdict.reasons { out += "      reason: \(UntrustedText.escape(reason.message))\n" }
        }
        return out
    }
}
