import ATSReport
import ATSFiles
import ATSPolicy
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport
import TLSFacts

/// The live progress line the sink keeps up to date (terminal I/O: the executable's
/// `AuditProgress`); the sink tells it what started and finished, and clears it before writing.
package protocol AuditProgressDisplay: Sendable {
    mutating func started(_ id: Int, name: String)
    mutating func finished(_ id: Int)
    /// Redraws; `force` after a result line cleared it.
    mutating func update(_ tally: AuditTally, force: Bool)
    mutating func clear()
}

/// Where finished targets go, one at a time, as they finish: a record to stdout (or --output)
/// and to --records, a count in the tally, the progress line, and for plist the exception to
/// merge at the end. Every format is rendered from the record (`AuditRecord`, ATSReport): the
/// same typed value the JSON Lines carry and `atsprobe report` decodes, so the two agree.
package actor AuditSink<Progress: AuditProgressDisplay> {
    /// One of `AuditFormats.formats`: text, JSON Lines and plist as targets finish (`AuditFormats.streamed`),
    /// any other `Report` renders once every target is done.
    private let format: OutputFormat
    /// The format is a report's, written at the end.
    private var isReport: Bool { !AuditFormats.streamed.contains(format) }
    private let verbose: Bool
    private let quiet: Bool
    private let palette: Palette
    /// What the run was made with: every record carries it.
    package nonisolated let run: RunInfo
    private let handle: FileStream
    /// --records: the JSON Lines as well, whatever the format.
    private let records: FileStream?
    /// Warnings, the interrupted run's note and the summary (standard error).
    private let errors: FileStream
    private let encoder = JSONEncoder.atsprobe(pretty: false)
    package private(set) var tally = AuditTally()
    private var progress: Progress
    /// Only for --format plist: one entry per host that needs an exception.
    private var exceptions: [String: DomainException] = [:]
    /// For the report formats (html, csv, markdown, junit, sarif), which need every target
    /// before their first line: each record without its handshakes.
    private var collected: [AuditRecord] = []
    /// --baseline: the earlier run as the comparison reads it, compared with this one at the end.
    private let baseline: BaselineInput?
    /// --baseline: what the comparison reads of each finished target (never the record: a
    /// 20,000-target run keeps a few MB, as `report --diff` does).
    private var sides: [BaselineComparison.Side] = []
    /// Set by finish() with --baseline.
    package private(set) var comparison: BaselineComparison?
    /// --forecast: the fewest seconds until any target loads worse than now (`--fail-on expiring:`).
    package private(set) var soonestWorseningSeconds: Int?
    /// For --format text: what the matrix by origin at the end needs of each target (its name,
    /// origin, verdict and results, not the record).
    private var matrix = ReportTextMatrix()

    /// `output` is standard output or the --output file, `records` the --records file, `errors`
    /// standard error: the caller opens them.
    package init(format: OutputFormat, verbose: Bool, quiet: Bool, palette: Palette, run: RunInfo, output: FileStream,
                 records: FileStream?, errors: FileStream, progress: Progress, baseline: BaselineInput? = nil,
                 junitCases: ReportJUnit.Cases = .targets, sarifCategory: String? = nil, metricsLabels: MetricsLabels = MetricsLabels(),
                 replacement: PendingReplacement? = nil) {
        self.sarifCategory = sarifCategory
        self.metricsLabels = metricsLabels
        self.junitCases = junitCases
        self.replacement = replacement
        self.format = format
        self.verbose = verbose
        self.quiet = quiet
        self.palette = palette
        self.run = run
        self.progress = progress
        self.baseline = baseline
        handle = output
        self.records = records
        self.errors = errors
        // --at: the text says which instant certificates are judged at (JSON: run.judgedAt).
        if format == .text, let judgedAt = run.judgedAt {
            output.write("Certificates judged at \(RequestedInstant.iso(judgedAt)) (--at)\n")
        }
    }

    /// `--junit-cases`: a testcase per target (the default) or per nscurl test.
    private let junitCases: ReportJUnit.Cases
    /// `--sarif-category`.
    private let sarifCategory: String?
    /// `--metrics-label`: labels on every series of the metrics formats.
    private let metricsLabels: MetricsLabels
    /// The --output file being replaced: `output` writes its temporary, and the end of the run
    /// (its finish, or an interrupt) puts it in place (docs/robustness.md, "Files").
    private let replacement: PendingReplacement?

    /// Targets started and not yet written (for the interrupted run's summary).
    private var running: Set<Int> = []

    package func started(_ entry: AuditEntry, name: String) {
        running.insert(entry.position)
        progress.started(entry.position, name: name)
        progress.update(tally, force: false)
    }

    /// A target's run, as its diagnostics document (the engine writes it with this sink's `run`).
    package func finished(_ document: DiagnosticsJSON, entry: AuditEntry) {
        if format == .plist, case .exception(let domain, let suggested, _) = document.suggestion.suggestion {
            exceptions[domain] = exceptions[domain]?.widened(toCover: suggested) ?? suggested
        }
        emit(.result(document, verdict: document.verdict, entry: entry.record), entry: entry)
    }

    package func timedOut(_ target: TargetReport, deadline: Double, entry: AuditEntry) {
        emit(.timedOut(target, deadlineSeconds: deadline, entry: entry.record, run: run, finishedAt: Date()), entry: entry)
    }

    /// A target this machine could not audit (out of descriptors, memory, threads): an "error"
    /// record naming the local cause, and exit 70, never a verdict about the server.
    package func failedLocally(_ entry: AuditEntry, target: Target, failure: ProbeFailure) {
        progress.clear()
        let message = "local failure, not the server's: \(ProbeText.describe(failure))"
        warn("\(UntrustedText.escape(target.url, limit: 300)): \(message)")
        emit(.failed(message, entry: entry.record, run: run, finishedAt: Date()), entry: entry)
        tally.localFailures += 1
    }

    /// A bad line: named with its number on stderr, and a record of kind "error" in the results.
    package func rejected(_ entry: AuditEntry, message: String) {
        progress.clear()
        let place = entry.line.map { "line \($0)" } ?? "argument \(entry.position)"
        warn("\(place): \(message)")
        emit(.failed(message, entry: entry.record, run: run, finishedAt: Date()), entry: entry)
    }

    /// The ticker's redraw: elapsed times keep growing while a host is silent.
    package func tick() {
        guard !done else { return }
        progress.update(tally, force: false)
    }

    /// Set by finish(): nothing is drawn after the summary.
    private var done = false

    /// SIGINT or SIGTERM: called once the run has stopped (no record comes after it; the actor
    /// writes one at a time, so none is cut). Writes what finished so far: the JSON Lines or text
    /// already out, or for plist the exceptions merged so far; targets that were still running
    /// are not reported; for a report format, the report of the targets that finished. Then
    /// closes --records and the output as `finish()` does (an --output file is replaced whole).
    package func interrupted(signalName: String) throws {
        done = true
        progress.clear()
        if format == .plist { handle.write(try ExceptionPlist.render(ATSConfiguration(exceptionDomains: exceptions))) }
        // A report of what finished (the targets still running are not in it).
        if isReport { writeReport() }
        let lost = running.isEmpty ? "" : ", \(running.count) still running not reported"
        // The matrix of what finished, as `atsprobe report` of the --records file draws it.
        if format == .text { handle.write(matrix.render()) }
        errors.write("atsprobe: interrupted by \(signalName)\(lost)\n")
        errors.write(tally.summary)
        try records?.finish()
        if let replacement { try replacement.commit() } else { try handle.finish() }
    }

    /// Writes the plist or the report (if that is the format), clears the progress line, prints the summary.
    package func finish() throws {
        done = true
        if format == .plist { handle.write(try ExceptionPlist.render(ATSConfiguration(exceptionDomains: exceptions))) }
        if isReport { writeReport() }
        progress.clear()
        if format == .text { handle.write(matrix.render()) }
        if let baseline {
            // After the results for text (people read it there); elsewhere the output is a
            // document, so the comparison goes to stderr with the summary.
            var compared = BaselineComparison(old: baseline.sides, new: sides)
            compared.notComparable = baseline.notComparable
            comparison = compared
            let text = compared.text(baseline: baseline.path)
            if format == .text { handle.write(text) } else if !quiet { errors.write(text) }
        }
        if !quiet { errors.write(tally.summary) }
        try records?.finish()
        if let replacement { try replacement.commit() } else { try handle.finish() }
    }

    private func emit(_ record: AuditRecord, entry: AuditEntry) {
        running.remove(entry.position)
        progress.finished(entry.position)
        guard var data = try? encoder.encode(record) else { return }
        data.append(UInt8(ascii: "\n"))
        records?.write(data)
        tally.add(record.verdict, keys: record.exceptionKeys.map(\.key))
        if let seconds = ReportForecast.secondsUntilWorse(record) { soonestWorseningSeconds = min(soonestWorseningSeconds ?? seconds, seconds) }
        // plist and the reports are written at the end.
        if format == .json {
            progress.clear()
            handle.write(data)
        } else if format == .text {
            progress.clear()
            handle.write(ReportText.entry(record, verbose: verbose, palette: palette))
            matrix.add(record)
        }
        if isReport { collected.append(record.withoutHandshakes) }
        if baseline != nil { sides.append(BaselineComparison.Side(record)) }
        // Drawn again at once: a line written after the bar must not leave it erased.
        progress.update(tally, force: true)
    }

    /// The report of what finished, by `Report`'s registry (SARIF with its category, cut to
    /// GitHub's limit with a warning).
    private func writeReport() {
        let options = RenderOptions(verbose: verbose, junitCases: junitCases, sarifCategory: sarifCategory, metricsLabels: metricsLabels)
        do {
            let rendered = try Report(collected).rendered(format, options: options)
            handle.write(rendered.text)
            errors.write(rendered.standardError)
        } catch {
            warn("\(error)")
        }
    }

    /// "atsprobe: <message>" on standard error.
    private func warn(_ message: String) {
        errors.write("atsprobe: \(message)\n")
    }
}

/// `--baseline`: the earlier run as the comparison reads it (`RunRecords.sides`), and how it
/// differs from this run when compared anyway (`Comparability`).
package struct BaselineInput: Sendable {
    package var path: String
    package var sides: [BaselineComparison.Side]
    package var notComparable: [String]

    package init(path: String, sides: [BaselineComparison.Side], notComparable: [String]) {
        self.path = path
        self.sides = sides
        self.notComparable = notComparable
    }
}

extension AuditEntry {
    /// The input a record names: the line's text and number.
    package var record: AuditRecord.Entry { AuditRecord.Entry(input: text, line: line) }
}
