#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The subset of SARIF 2.1.0 (OASIS, "Static Analysis Results Interchange Format Version
/// 2.1.0", https://docs.oasis-open.org/sarif/sarif/v2.1.0/) that atsprobe writes: one run, its
/// tool and rules, results located in a file (line and column) or at a URL. Plain Codable
/// values with no atsprobe types: every command that writes SARIF (plist lint, plist check, app,
/// audit) builds its log from these (`ReportSARIF`), so all of them render through this library.
///
/// Required fields, by the spec's schema: sarifLog {version, runs}; run {tool}; tool {driver};
/// toolComponent {name}; reportingDescriptor {id}; result {message}; message {text};
/// artifactLocation {uri}; region line and column numbers >= 1.
public struct SARIFLog: Codable, Hashable, Sendable {
    /// Written as "$schema": where SARIF readers and editors find the schema.
    public var schema = "https://json.schemastore.org/sarif-2.1.0.json"
    public var version = "2.1.0"
    public var runs: [Run]

    public init(runs: [Run]) { self.runs = runs }

    private enum CodingKeys: String, CodingKey {
        case schema = "$schema"
        case version, runs
    }

    public struct Run: Codable, Hashable, Sendable {
        public var tool: Tool
        /// The files results point into, when one is inside another (an Info.plist inside an
        /// .ipa: the archive, then the plist with `parentIndex`); nil when every uri stands alone.
        public var artifacts: [Artifact]?
        public var results: [Result]
        /// "columnKind": atsprobe counts Unicode characters (a tab is one).
        public var columnKind = "unicodeCodePoints"
        /// `--sarif-category NAME`: `{id: "NAME/"}`, which GitHub reads as the upload's category,
        /// so a lint upload and an audit upload keep their own alerts (nil without the option).
        public var automationDetails: AutomationDetails?
        /// What the run itself says beside its results: results cut to GitHub's limit,
        /// `--compare-anyway` (`notify`).
        public var invocations: [Invocation]?

        public init(tool: Tool, artifacts: [Artifact]? = nil, results: [Result]) {
            self.tool = tool
            self.artifacts = artifacts
            self.results = results
        }
    }

    /// SARIF's runAutomationDetails: `id` is "CATEGORY/" (GitHub takes what precedes the last
    /// slash as the category).
    public struct AutomationDetails: Codable, Hashable, Sendable {
        public var id: String
        public init(id: String) { self.id = id }
    }

    /// SARIF's invocation: required `executionSuccessful`, and warnings about the run.
    public struct Invocation: Codable, Hashable, Sendable {
        public var executionSuccessful: Bool
        public var toolExecutionNotifications: [Notification]?
        public init(executionSuccessful: Bool, toolExecutionNotifications: [Notification]?) {
            self.executionSuccessful = executionSuccessful
            self.toolExecutionNotifications = toolExecutionNotifications
        }
    }

    public struct Notification: Codable, Hashable, Sendable {
        public var level: Level
        public var message: Message
        public init(level: Level, message: Message) {
            self.level = level
            self.message = message
        }
    }

    /// GitHub's limit of results in one run ("SARIF support for code scanning", upload limits):
    /// past it GitHub drops results, so `limited` cuts first, the most severe kept.
    public static let resultsPerRunLimit = 25_000

    /// A warning on every run, shown beside the results (`--compare-anyway`, a cut).
    public mutating func notify(_ text: String, level: Level = .warning) {
        for index in runs.indices {
            var invocation = runs[index].invocations?.first ?? Invocation(executionSuccessful: true, toolExecutionNotifications: [])
            invocation.toolExecutionNotifications = (invocation.toolExecutionNotifications ?? []) + [Notification(level: level, message: .init(text: text))]
            runs[index].invocations = [invocation]
        }
    }

    /// The log as uploaded: `category` set on every run (`--sarif-category`), and each run's
    /// results cut to `resultsPerRunLimit`, errors kept before warnings before notes (in their
    /// order), with a notification in the log and the `warning` returned for standard error.
    public func finished(category: String?, limit: Int = SARIFLog.resultsPerRunLimit) -> (log: SARIFLog, warning: String?) {
        var log = self
        var warning: String?
        for index in log.runs.indices {
            if let category { log.runs[index].automationDetails = AutomationDetails(id: category + "/") }
            let results = log.runs[index].results
            guard results.count > limit else { continue }
            let rank: (Level) -> Int = { switch $0 { case .error: 0; case .warning: 1; case .note: 2; case .none: 3 } }
            let kept = results.enumerated().sorted { (rank($0.element.level), $0.offset) < (rank($1.element.level), $1.offset) }
                .prefix(limit).sorted { $0.offset < $1.offset }.map(\.element)
            log.runs[index].results = kept
            let text = "\(results.count) results, over GitHub's \(limit) a run: the \(limit) most severe are kept, "
                + "\(results.count - limit) left out (the records and the other formats have every target)"
            warning = "SARIF: " + text
            var run = SARIFLog(runs: [log.runs[index]])
            run.notify(text)
            log.runs[index] = run.runs[0]
        }
        return (log, warning)
    }

    /// The log as JSON, one line ended by a newline (plain Codable values: encoding cannot fail).
    public var json: String {
        ((try? JSONEncoder.atsprobe().encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "") + "\n"
    }

    public struct Tool: Codable, Hashable, Sendable {
        public var driver: Driver
        public init(driver: Driver) { self.driver = driver }
    }

    public struct Driver: Codable, Hashable, Sendable {
        public var name: String
        public var version: String?
        public var informationUri: String?
        public var rules: [Rule]

        public init(name: String, version: String?, informationUri: String?, rules: [Rule]) {
            self.name = name
            self.version = version
            self.informationUri = informationUri
            self.rules = rules
        }
    }

    /// A reportingDescriptor: one per lint rule or failure class.
    /// What code scanning shows of a rule (GitHub's "SARIF support for code scanning"):
    /// `fullDescription`, `help` (Markdown: what ATS requires and the fix), `helpUri`, and
    /// `properties` with `security-severity` and `tags`. `SARIFRules.described` fills them.
    public struct Rule: Codable, Hashable, Sendable {
        public var id: String
        public var shortDescription: Message?
        public var fullDescription: Message?
        public var help: MultiformatMessage?
        public var helpUri: String?
        public var defaultConfiguration: Configuration?
        public var properties: RuleProperties?

        public init(id: String, shortDescription: Message? = nil, fullDescription: Message? = nil, help: MultiformatMessage? = nil,
                    helpUri: String? = nil, defaultConfiguration: Configuration? = nil, properties: RuleProperties? = nil) {
            self.id = id
            self.shortDescription = shortDescription
            self.fullDescription = fullDescription
            self.help = help
            self.helpUri = helpUri
            self.defaultConfiguration = defaultConfiguration
            self.properties = properties
        }
    }

    /// A message with a Markdown form (SARIF's multiformatMessageString).
    public struct MultiformatMessage: Codable, Hashable, Sendable {
        public var text: String
        public var markdown: String?
        public init(text: String, markdown: String?) {
            self.text = text
            self.markdown = markdown
        }
    }

    /// A rule's property bag: GitHub reads `security-severity` (a number 0.0-10.0, as a
    /// string) and `tags`.
    public struct RuleProperties: Codable, Hashable, Sendable {
        public var securitySeverity: String
        public var tags: [String]
        public var precision: String?

        public init(securitySeverity: String, tags: [String], precision: String? = "high") {
            self.securitySeverity = securitySeverity
            self.tags = tags
            self.precision = precision
        }

        private enum CodingKeys: String, CodingKey {
            case securitySeverity = "security-severity"
            case tags, precision
        }
    }

    public struct Configuration: Codable, Hashable, Sendable {
        public var level: Level
        public init(level: Level) { self.level = level }
    }

    public enum Level: String, Codable, Hashable, Sendable {
        case error, warning, note, none
    }

    public struct Message: Codable, Hashable, Sendable {
        public var text: String
        public init(text: String) { self.text = text }
    }

    public struct Result: Codable, Hashable, Sendable {
        public var ruleId: String
        /// Index of the rule in `driver.rules`.
        public var ruleIndex: Int?
        public var level: Level
        public var message: Message
        public var locations: [Location]
        /// Where else the result points (the target URL a failed load was made to).
        public var relatedLocations: [Location]?
        /// What identifies the result across runs, whatever line it moves to (GitHub tracks an
        /// alert by it): `SARIFRules.fingerprintKey` to a hash of the rule and what it is about.
        public var partialFingerprints: [String: String]?

        public init(ruleId: String, ruleIndex: Int?, level: Level, message: Message, locations: [Location], relatedLocations: [Location]? = nil,
                    partialFingerprints: [String: String]? = nil) {
            self.partialFingerprints = partialFingerprints
            self.ruleId = ruleId
            self.ruleIndex = ruleIndex
            self.level = level
            self.message = message
            self.locations = locations
            self.relatedLocations = relatedLocations
        }
    }

    public struct Location: Codable, Hashable, Sendable {
        /// Required (>= 0) on related locations, which are referred to by id.
        public var id: Int?
        public var physicalLocation: PhysicalLocation
        public var message: Message?

        public init(id: Int? = nil, physicalLocation: PhysicalLocation, message: Message? = nil) {
            self.id = id
            self.physicalLocation = physicalLocation
            self.message = message
        }
    }

    public struct PhysicalLocation: Codable, Hashable, Sendable {
        public var artifactLocation: ArtifactLocation
        /// nil for a binary plist or a URL: the whole artifact.
        public var region: Region?

        public init(artifactLocation: ArtifactLocation, region: Region?) {
            self.artifactLocation = artifactLocation
            self.region = region
        }
    }

    public struct ArtifactLocation: Codable, Hashable, Sendable {
        public var uri: String
        /// The artifact in `run.artifacts` this location is in (a file inside an archive).
        public var index: Int?

        public init(uri: String, index: Int? = nil) {
            self.uri = uri
            self.index = index
        }
    }

    /// An entry of `run.artifacts`: a file, and (SARIF's artifact `parentIndex`) the artifact it
    /// is nested in, such as the .ipa an Info.plist was read from.
    public struct Artifact: Codable, Hashable, Sendable {
        public var location: ArtifactLocation
        public var parentIndex: Int?

        public init(location: ArtifactLocation, parentIndex: Int?) {
            self.location = location
            self.parentIndex = parentIndex
        }
    }

    public struct Region: Codable, Hashable, Sendable {
        public var startLine: Int
        /// nil: the whole line (an audit's --input line).
        public var startColumn: Int?

        public init(startLine: Int, startColumn: Int?) {
            self.startLine = startLine
            self.startColumn = startColumn
        }
    }

    /// A file path as a SARIF uri: a relative path stays relative (code scanning resolves it
    /// against the repository root); an absolute one becomes file://. Every byte outside
    /// RFC 3986's unreserved set and "/" is percent-encoded, so spaces and untrusted names
    /// cannot break the URI.
    public static func fileURI(_ path: String) -> String {
        var out = path.hasPrefix("/") ? "file://" : ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out
    }
}
