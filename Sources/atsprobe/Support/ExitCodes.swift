import ArgumentParser
import ATSEngine
import ATSFiles
import ATSReport
import PropertyList
import TLSFacts

/// atsprobe's exit codes (docs/exit-codes.md). When several targets disagree the highest of
/// 2, 1, 0 wins; 64 and 70 stop the run.
enum ExitStatus: Int32, Comparable {
    /// Every target passes default ATS; no findings.
    case clear = 0
    /// Findings: a target needs an exception, a trust problem, a lint finding.
    case findings = 1
    /// A target could not be reached or spoke no TLS at all.
    case unreachable = 2
    /// Usage error or bad input.
    case usage = 64
    /// A bug, or this machine ran out of resources (LocalFailure).
    case internalError = 70
    /// `audit` stopped by SIGINT (128 + 2, the shell's convention); the output holds every
    /// target finished before it, each record whole.
    case interrupted = 130
    /// `audit` stopped by SIGTERM (128 + 15), likewise.
    case terminated = 143

    var exitCode: ExitCode { ExitCode(rawValue) }

    static func < (lhs: ExitStatus, rhs: ExitStatus) -> Bool { lhs.rawValue < rhs.rawValue }
}

extension ExitStatus {
    /// An audit's outcome as its exit code (docs/exit-codes.md).
    init(_ severity: AuditSeverity) {
        switch severity {
        case .clear: self = .clear
        case .findings: self = .findings
        case .unreachable: self = .unreachable
        case .badInput: self = .usage
        case .localFailure: self = .internalError
        }
    }
}

/// This machine, not the input or a server, failed (out of descriptors, memory, threads):
/// printed as "atsprobe: <message>" and exit 70, since no verdict can be drawn.
struct LocalFailure: Error, CustomStringConvertible {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }

    /// A target of an in-order run (diagnose, plist check, app) that this machine failed.
    init(_ error: TargetRunError) {
        message = "\(error.target.url): \(error.failure.map(ProbeText.describe) ?? "did not finish")"
    }
}

/// The reports of an in-order run (`AuditScheduler.runInOrder`), in the targets' order; a
/// target this machine failed stops the command (exit 70).
func inOrderReports<Report>(_ events: [AuditEvent<Int, Report>], targets: [Target]) throws(LocalFailure) -> [Report] {
    do throws(TargetRunError) {
        return try TargetRunError.reports(of: events, targets: targets)
    } catch {
        throw LocalFailure(error)
    }
}

/// `{NSAppTransportSecurity: dictionary}` as an XML property list (the tightened dictionary of
/// `plist check` and `app`); a dictionary that cannot be written is bad input (64).
func tightenedPlistText(_ dictionary: [String: PropertyListValue]) throws(InputError) -> String {
    do throws(PropertyListError) {
        return try PlistTargetCheck.tightenedPlist(dictionary)
    } catch {
        throw InputError(error.description)
    }
}

extension DiagnosticsText {
    /// 0 default ATS passes, 2 unreachable, else 1: the audit's verdict for one report.
    static func exitStatus(for report: DiagnosticsReport) -> ExitStatus { ExitStatus(AuditVerdict(report).severity) }
}
