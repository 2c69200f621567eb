import ATSPolicy
import ATSProbe
import ATSTrust
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a run was made with and when it started: carried by every JSON document and every
/// JSON Lines record as `run` (docs/json-schema.md), so each record stands alone. The run's end
/// is the latest record's `finishedAt`.
struct RunInfo: Codable, Hashable, Sendable {
    var tool = "atsprobe"
    var toolVersion: String
    var openSSLVersion: String
    /// The ATS rule set judged by (--rules); absent for probe, which judges no ATS dictionary.
    var ruleSet: String?
    /// Which anchors trust was judged against: the system store, and --ca-file/--ca-dir;
    /// absent for commands that connect nowhere (plist lint).
    var trustStore: String?
    /// The CT log list SCTs were judged against (built in, or --ct-log-list); absent as trustStore.
    var ctLogList: String?
    var startedAt: Date

    static var version: String { ToolVersion.current }  // the one place is Version.swift

    /// For a command that connects nowhere.
    init(ruleSet: String?, trustStore: String?, ctLogList: String?, startedAt: Date = Date()) {
        toolVersion = RunInfo.version
        openSSLVersion = OpenSSLVersion.text
        self.ruleSet = ruleSet
        self.trustStore = trustStore
        self.ctLogList = ctLogList
        self.startedAt = Date(timeIntervalSince1970: startedAt.timeIntervalSince1970.rounded(.down))
    }

    init(ruleSet: String?, connection: ConnectionOptions, logs: CTLogList, startedAt: Date = Date()) {
        toolVersion = RunInfo.version
        openSSLVersion = OpenSSLVersion.text
        self.ruleSet = ruleSet
        var anchors = [connection.trustStore == .apple ? AppleRootStore.description : SystemStoreName.description]
        if let file = connection.caFile { anchors.append("--ca-file \(file)") }
        if let directory = connection.caDir { anchors.append("--ca-dir \(directory)") }
        trustStore = anchors.joined(separator: " + ")
        ctLogList = logs.source
        // Whole seconds: the JSON carries ISO 8601 without fractions, and a report rendered from
        // the JSON must equal the live one.
        self.startedAt = Date(timeIntervalSince1970: startedAt.timeIntervalSince1970.rounded(.down))
    }
}
