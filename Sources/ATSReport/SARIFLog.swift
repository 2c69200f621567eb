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

        public init(tool: Tool, artifacts: [Artifact]? = nil, results: [Result]) {
            self.tool = tool
            self.artifacts = artifacts
            self.results = results
        }
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
