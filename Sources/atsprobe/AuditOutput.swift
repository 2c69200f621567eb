import ATSDiagnostics
import ATSPolicy
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts
#if canImport(Glibc)
import Glibc
#endif

/// Where finished targets go, one at a time, as they finish: a record to stdout (or --output),
/// a count in the tally, the progress line, and for plist the exception to merge at the end.
actor AuditOutput {
    private let format: OutputFormat
    private let verbose: Bool
    private let handle: FileStream
    private let encoder = JSONEncoder.atsprobe(pretty: false)
    private(set) var tally = AuditTally()
    private var progress: AuditProgress
    private var running = 0
    /// Only for --format plist: one entry per host that needs an exception.
    private var exceptions: [String: DomainException] = [:]

    /// `path` nil writes to standard output. Throws an InputError when the file cannot be created.
    init(format: OutputFormat, verbose: Bool, path: String?, progress: AuditProgress) throws {
        self.format = format
        self.verbose = verbose
        self.progress = progress
        if let path {
            handle = try FileStream(creating: path)
        } else {
            handle = FileStream.standardOutput
        }
    }

    func started() {
        running += 1
        progress.update(tally, running: running)
    }

    func finished(_ report: DiagnosticsReport, entry: AuditEntry) {
        running -= 1
        let verdict = AuditVerdict(report)
        var exception: DomainException?
        if case .exception(let domain, let suggested, _) = report.suggestion {
            exception = suggested
            if format == .plist { exceptions[domain] = exceptions[domain]?.widened(toCover: suggested) ?? suggested }
        }
        emit(.result(DiagnosticsJSON(report, verbose: verbose), verdict: verdict, entry: entry),
             text: "\(textVerdict(verdict)) \(report.target.url)\(exceptionText(exception))")
        tally.add(verdict, exception: exception)
        progress.update(tally, running: running)
    }

    func timedOut(_ target: TargetReport, deadline: Double, entry: AuditEntry) {
        running -= 1
        emit(.timeout(target, deadlineSeconds: deadline, entry: entry),
             text: "\(textVerdict(.timeout)) \(target.url) (no result within \(deadline) s)")
        tally.add(.timeout)
        progress.update(tally, running: running)
    }

    /// A target this machine could not audit (out of descriptors, memory, threads): an "error"
    /// record naming the local cause, and exit 70, never a verdict about the server.
    func failedLocally(_ entry: AuditEntry, target: Target, failure: ProbeFailure) {
        running -= 1
        progress.clear()
        let message = "local failure, not the server's: \(ProbeText.describe(failure))"
        Diagnostics.warn("\(UntrustedText.escape(target.url, limit: 300)): \(message)")
        emit(.error(message: message, entry: entry),
             text: "\(textVerdict(.error)) \(UntrustedText.escape(target.url, limit: 300)) (\(message))")
        tally.add(.error)
        tally.localFailures += 1
        progress.update(tally, running: running, force: true)
    }

    /// A bad line: named with its number on stderr, and a record of kind "error" in the results.
    func rejected(_ entry: AuditEntry, message: String) {
        progress.clear()
        let place = entry.line.map { "line \($0)" } ?? "argument \(entry.position)"
        Diagnostics.warn("\(place): \(message)")
        emit(.error(message: message, entry: entry),
             text: "\(textVerdict(.error)) \(UntrustedText.escape(entry.text, limit: 200)) (\(place): \(message))")
        tally.add(.error)
        progress.update(tally, running: running, force: true)
    }

    /// SIGINT or SIGTERM: ends the run here, between two records (the actor writes one at a
    /// time, so none is cut), with what finished so far: the JSON Lines or text already out, or
    /// for plist the exceptions merged so far. Targets still running are not reported.
    func interrupt(signalName: String, status: ExitStatus) -> Never {
        progress.clear()
        if format == .plist, let plist = try? ExceptionPlist.render(ATSConfiguration(exceptionDomains: exceptions)) {
            handle.write(plist)
        }
        let lost = running > 0 ? ", \(running) still running not reported" : ""
        FileStream.standardError.write("atsprobe: interrupted by \(signalName)\(lost)\n")
        FileStream.standardError.write(tally.summary)
        try? handle.finish()
        exit(status.rawValue)
    }

    /// Writes the plist (if that is the format), clears the progress line, prints the summary.
    func finish() throws {
        if format == .plist {
            handle.write(try ExceptionPlist.render(ATSConfiguration(exceptionDomains: exceptions)))
        }
        progress.clear()
        FileStream.standardError.write(tally.summary)
        try handle.finish()
    }

    private func emit(_ record: AuditRecord, text: String) {
        switch format {
        case .json:
            guard var data = try? encoder.encode(record) else { return }
            data.append(UInt8(ascii: "\n"))
            progress.clear()
            handle.write(data)
        case .text:
            progress.clear()
            handle.write(text + "\n")
        case .plist:
            break
        }
    }

    private func textVerdict(_ verdict: AuditVerdict) -> String {
        verdict.rawValue.uppercased().padded(to: 12)
    }

    private func exceptionText(_ exception: DomainException?) -> String {
        guard let exception else { return "" }
        return " needs " + exception.propertyList.keys.sorted().joined(separator: ", ")
    }
}
