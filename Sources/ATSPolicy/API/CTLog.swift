#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One Certificate Transparency log as a log list describes it.
public struct CTLog: Hashable, Sendable, Codable {
    /// The log list states (Chrome's log_states.md; Apple's list uses the same names).
    public enum State: String, Hashable, Sendable, Codable {
        case pending, qualified, usable, readonly, retired, rejected
    }
    /// RFC 6962 logs, or logs on the static-ct-api (C2SP), which Apple lists as "tiled_logs".
    public enum API: String, Hashable, Sendable, Codable { case rfc6962, staticCTAPI }

    /// Base64 of the 32-byte log ID (SHA-256 of the log's public key).
    public var logID: String
    /// The list's "description" ("Google 'Argon2026h1' log").
    public var name: String
    public var operatorName: String
    public var state: State
    /// The day (UTC) the log entered `state`; the list gives the time, the table keeps the day.
    public var stateSince: Date
    public var api: API

    public init(logID: String, name: String, operatorName: String, state: State, stateSince: Date, api: API) {
        self.logID = logID
        self.name = name
        self.operatorName = operatorName
        self.state = state
        self.stateSince = stateSince
        self.api = api
    }

    /// The table's compact row form (CTLogs.swift).
    init(_ logID: String, _ name: String, operator operatorName: String, _ state: State,
         since day: (Int, Int, Int), _ api: API) {
        self.init(logID: logID, name: name, operatorName: operatorName, state: state,
                  stateSince: UTCDay.date(day.0, day.1, day.2), api: api)
    }

    /// Whether an SCT with `timestamp`, judged at `date`, comes from a currently approved log:
    /// qualified or usable by `date`, or read-only with the SCT issued before the log froze.
    public func isCurrentlyApproved(sctTimestamp timestamp: Date, at date: Date) -> Bool {
        switch state {
        case .qualified, .usable: stateSince <= date
        case .readonly: timestamp < stateSince
        case .pending, .retired, .rejected: false
        }
    }

    /// Currently approved, or retired with the SCT issued while the log was approved.
    public func isOnceOrCurrentlyApproved(sctTimestamp timestamp: Date, at date: Date) -> Bool {
        if isCurrentlyApproved(sctTimestamp: timestamp, at: date) { return true }
        return state == .retired && timestamp < stateSince
    }
}

/// A set of known CT logs, keyed by log ID, with where the data came from.
public struct CTLogList: Hashable, Sendable {
    /// Where the rows were read and when ("Apple current_log_list.json, version 511, ...").
    public let source: String
    public let logsByID: [String: CTLog]
    /// Each log's public key (DER SubjectPublicKeyInfo) by log ID, for checking SCT signatures.
    public let keys: [String: [UInt8]]

    public init(source: String, logs: [CTLog], keys: [String: [UInt8]] = [:]) {
        self.source = source
        self.logsByID = Dictionary(logs.map { ($0.logID, $0) }, uniquingKeysWith: { first, _ in first })
        self.keys = keys
    }

    public subscript(logID: String) -> CTLog? { logsByID[logID] }

    public var logs: [CTLog] { logsByID.values.sorted { ($0.operatorName, $0.name) < ($1.operatorName, $1.name) } }
}
