#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport
import TLSFacts

/// Why a CT log list file could not be used; one line, naming the file.
public struct CTLogListError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong, for code: callers compare this, never `reason`'s text.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// Not JSON in the log list's schema.
        case notALogList
        /// A log_id that is not 32 bytes of base64, or a key that is not base64.
        case badLogID
        case badKey
        /// One log_id listed twice.
        case duplicateLog
        /// A log with no state, more than one, or a state timestamp that is not RFC 3339.
        case badState
        /// A list without a log.
        case noLogs
        /// A log's key does not hash to its log_id.
        case keyMismatch
    }

    public var code: Code
    public var source: String
    /// For people: what is wrong, after the file's name.
    public var reason: String

    public init(_ code: Code, source: String, reason: String) {
        self.code = code
        self.source = source
        self.reason = reason
    }

    public var description: String { "CT log list '\(UntrustedText.escape(source, limit: 400))': \(reason)" }
}

extension CTLogList {
    /// Reads a log list in the JSON schema Apple publishes at
    /// https://valid.apple.com/ct/log_list/current_log_list.json (the schema Chrome's list uses:
    /// operators, each with `logs` and `tiled_logs`, each log with `log_id`, `description`, one `state` and
    /// the `key` SCT signatures are checked with). Like the built-in
    /// table, a state keeps the day of its timestamp (UTC). URLs and temporal intervals are not read.
    public init(appleLogListJSON data: Data, source: String) throws(CTLogListError) {
        func fail(_ code: CTLogListError.Code, _ reason: String) -> CTLogListError { CTLogListError(code, source: source, reason: reason) }
        let file: ListFile
        do {
            file = try JSONDecoder().decode(ListFile.self, from: data)
        } catch let error as DecodingError {
            throw fail(.notALogList, "not a log list: \(Self.describe(error))")
        } catch {
            throw fail(.notALogList, "not a log list")
        }
        var logs: [CTLog] = []
        var keys: [String: [UInt8]] = [:]
        var listed: [Data: String] = [:]
        for op in file.operators {
            for (entries, api) in [(op.logs ?? [], CTLog.API.rfc6962), (op.tiled_logs ?? [], .staticCTAPI)] {
                for entry in entries {
                    let name = UntrustedText.escape(entry.description ?? entry.log_id, limit: 200)
                    guard let id = Data(base64Encoded: entry.log_id), id.count == 32 else {
                        throw fail(.badLogID, "log '\(name)': log_id is not 32 bytes of base64")
                    }
                    // A log listed twice would be decided by the file's order: refused instead.
                    if let earlier = listed[id] {
                        throw fail(.duplicateLog, "log_id \(UntrustedText.escape(entry.log_id, limit: 60)) is listed twice ('\(earlier)' and '\(name)')")
                    }
                    listed[id] = name
                    guard let (state, since) = try entry.state.only(source: source, log: name) else {
                        throw fail(.badState, "log '\(name)': no state")
                    }
                    if let text = entry.key {
                        // That the key hashes to the log ID is checked where SHA-256 is at hand (the CLI,
                        // through ATSProbe.CTLogKey); this module has no cryptography.
                        guard let key = Data(base64Encoded: text), !key.isEmpty else { throw fail(.badKey, "log '\(name)': key is not base64") }
                        keys[entry.log_id] = Array(key)
                    }
                    logs.append(CTLog(logID: entry.log_id, name: name, operatorName: UntrustedText.escape(op.name, limit: 200),
                                      state: state, stateSince: since, api: api))
                }
            }
        }
        guard !logs.isEmpty else { throw fail(.noLogs, "no logs") }
        let version = file.version.map { " version \(UntrustedText.escape($0, limit: 40))" } ?? ""
        self.init(source: "\(source)\(version) (\(logs.count) logs)", logs: logs, keys: keys)
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, let context): "missing \(path(context.codingPath + [key]))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context): "wrong type at \(path(context.codingPath))"
        case .dataCorrupted(let context): context.codingPath.isEmpty ? "not JSON" : "bad value at \(path(context.codingPath))"
        @unknown default: "unreadable"
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().trimmingPrefix(".").description
    }

    // The file's shape; names follow the JSON.
    private struct ListFile: Decodable {
        var version: String?
        var operators: [Operator]
    }

    private struct Operator: Decodable {
        var name: String
        var logs: [Log]?
        var tiled_logs: [Log]?
    }

    private struct Log: Decodable {
        var description: String?
        var log_id: String
        var key: String?
        var state: StateSet
    }

    private struct Stamp: Decodable {
        var timestamp: String
    }

    /// `"state": {"usable": {"timestamp": "..."}}`: exactly one of these keys.
    private struct StateSet: Decodable {
        var pending, qualified, usable, readonly, retired, rejected: Stamp?

        func only(source: String, log: String) throws(CTLogListError) -> (CTLog.State, Date)? {
            let present: [(CTLog.State, Stamp)] = [(.pending, pending), (.qualified, qualified), (.usable, usable),
                                                   (.readonly, readonly), (.retired, retired), (.rejected, rejected)]
                .compactMap { state, stamp in stamp.map { (state, $0) } }
            guard let (state, stamp) = present.first else { return nil }
            guard present.count == 1 else {
                throw CTLogListError(.badState, source: source, reason: "log '\(log)': more than one state")
            }
            let date: Date
            do { date = try Self.day(of: stamp.timestamp) } catch {
                throw CTLogListError(.badState, source: source, reason: "log '\(log)': state timestamp '\(UntrustedText.escape(stamp.timestamp, limit: 40))' "
                                     + "is not an RFC 3339 instant: \(error.reason)")
            }
            return (state, date)
        }

        /// The UTC day (midnight) of an RFC 3339 time, read as `--at` reads one
        /// (`RequestedInstant`: a day the month has, hours 00-23, an offset, nothing after it).
        static func day(of text: String) throws(RequestedInstant.ParseError) -> Date {
            let seconds = try RequestedInstant(parsing: text).date.timeIntervalSince1970
            return Date(timeIntervalSince1970: (seconds / 86_400).rounded(.down) * 86_400)
        }
    }
}
