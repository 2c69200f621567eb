#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a run was made with and when it started: carried by every JSON document and every
/// JSON Lines record as `run` (docs/json-schema.md), so each record stands alone. The run's end
/// is the latest record's `finishedAt`. CommandRuns fills it from the run (RunInfo+Run).
public struct RunInfo: Codable, Hashable, Sendable {
    public var tool = "atsprobe"
    public var toolVersion: String
    public var openSSLVersion: String
    /// The ATS rule set judged by (--rules); absent for probe, which judges no ATS dictionary.
    public var ruleSet: String?
    /// Which anchors trust was judged against: the system store, and --ca-file/--ca-dir;
    /// absent for commands that connect nowhere (plist lint).
    public var trustStore: String?
    /// The CT log list SCTs were judged against (built in, or --ct-log-list); absent as trustStore.
    public var ctLogList: String?
    public var startedAt: Date
    /// `--at`: the instant certificates were judged at, when the run was asked to judge at one
    /// (absent: each target was judged when its handshake was made).
    public var judgedAt: Date?
    /// `audit --input FILE`: the file as given (not `-`), so SARIF can place each result at the
    /// line that named its target, live or from the records (`atsprobe report`).
    public var input: String?
    /// The anchors by content: "sha256:" and a hex digest of the system store's name and version
    /// and of every user-installed root's and app anchor's fingerprint (schema 2 addition; absent
    /// in older records). Two runs whose anchors differ are not comparable (`report --diff`,
    /// `audit --baseline`), whatever the --ca-file's path.
    public var anchorsDigest: String?
    /// The options given that change a verdict, as a command line spells them, in a fixed order
    /// (`--rules ID`, `--at INSTANT`, `--trust-store apple|system`, `--ca-file FILE`, `--ca-dir DIR`,
    /// `--ct-log-list FILE`, `--no-aia`, `--allow-private-fetch`): what a comparable baseline is
    /// recorded with (schema 2 addition; absent in older records).
    public var verdictOptions: [String]?

    /// `startedAt` is kept in whole seconds: the JSON carries ISO 8601 without fractions, and a
    /// report rendered from the JSON must equal the live one.
    public init(toolVersion: String, openSSLVersion: String, ruleSet: String?, trustStore: String?, ctLogList: String?,
                startedAt: Date) {
        self.toolVersion = toolVersion
        self.openSSLVersion = openSSLVersion
        self.ruleSet = ruleSet
        self.trustStore = trustStore
        self.ctLogList = ctLogList
        self.startedAt = Date(timeIntervalSince1970: startedAt.timeIntervalSince1970.rounded(.down))
    }
}
