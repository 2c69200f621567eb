import ATSEngine
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One JSON Lines record of `audit --format json`: see docs/audit.md. A `result` is the
/// single-host diagnostics document (`DiagnosticsJSON`) with the audit's fields added.
enum AuditRecord: Encodable {
    case result(DiagnosticsJSON, verdict: AuditVerdict, entry: AuditEntry)
    case timeout(TargetReport, deadlineSeconds: Double, entry: AuditEntry, run: RunInfo, finishedAt: Date)
    case error(message: String, entry: AuditEntry, run: RunInfo, finishedAt: Date)

    private enum Key: String, CodingKey {
        case schemaVersion, kind, verdict, input, line, target, deadlineSeconds, message, run, finishedAt
    }

    func encode(to encoder: Encoder) throws {
        // The diagnostics document writes its own keys first; ours join the same object.
        if case .result(let document, _, _) = self { try document.encode(to: encoder) }
        var container = encoder.container(keyedBy: Key.self)
        switch self {
        case .result(_, let verdict, let entry):
            try container.encode("result", forKey: .kind)
            try container.encode(verdict, forKey: .verdict)
            try encode(entry, into: &container)
        case .timeout(let target, let deadline, let entry, let run, let finishedAt):
            try container.encode(jsonSchemaVersion, forKey: .schemaVersion)
            try container.encode(run, forKey: .run)
            try container.encode(Date(timeIntervalSince1970: finishedAt.timeIntervalSince1970.rounded(.down)), forKey: .finishedAt)
            try container.encode("timeout", forKey: .kind)
            try container.encode(AuditVerdict.timeout, forKey: .verdict)
            try container.encode(target, forKey: .target)
            try container.encode(deadline, forKey: .deadlineSeconds)
            try encode(entry, into: &container)
        case .error(let message, let entry, let run, let finishedAt):
            try container.encode(jsonSchemaVersion, forKey: .schemaVersion)
            try container.encode(run, forKey: .run)
            try container.encode(Date(timeIntervalSince1970: finishedAt.timeIntervalSince1970.rounded(.down)), forKey: .finishedAt)
            try container.encode("error", forKey: .kind)
            try container.encode(AuditVerdict.error, forKey: .verdict)
            try container.encode(message, forKey: .message)
            try encode(entry, into: &container)
        }
    }

    private func encode(_ entry: AuditEntry, into container: inout KeyedEncodingContainer<Key>) throws {
        try container.encode(entry.text, forKey: .input)
        try container.encode(entry.line, forKey: .line)
    }

    var verdict: AuditVerdict {
        switch self {
        case .result(_, let verdict, _): verdict
        case .timeout: .timeout
        case .error: .error
        }
    }
}
