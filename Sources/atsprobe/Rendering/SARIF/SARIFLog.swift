#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The subset of SARIF 2.1.0 (OASIS, "Static Analysis Results Interchange Format Version
/// 2.1.0", https://docs.oasis-open.org/sarif/sarif/v2.1.0/) that atsprobe writes: one run, its
/// tool and rules, results located in a file (line and column) or at a URL. Plain Codable
/// values with no atsprobe types, so any command (plist lint, plist check; later audit and app)
/// can build a log, and the file can move to a shared report module as it is.
///
/// Required fields, by the spec's schema: sarifLog {version, runs}; run {tool}; tool {driver};
/// toolComponent {name}; reportingDescriptor {id}; result {message}; message {text};
/// artifactLocation {uri}; region line and column numbers >= 1.
struct SARIFLog: Codable, Hashable, Sendable {
    /// Written as "$schema": where SARIF readers and editors find the schema.
    var schema = "https://json.schemastore.org/sarif-2.1.0.json"
    var version = "2.1.0"
    var runs: [Run]

    private enum CodingKeys: String, CodingKey {
        case schema = "$schema"
        case version, runs
    }

    struct Run: Codable, Hashable, Sendable {
        var tool: Tool
        var results: [Result]
        /// "columnKind": atsprobe counts Unicode characters (a tab is one).
        var columnKind = "unicodeCodePoints"
    }

    struct Tool: Codable, Hashable, Sendable {
        var driver: Driver
    }

    struct Driver: Codable, Hashable, Sendable {
        var name: String
        var version: String?
        var informationUri: String?
        var rules: [Rule]
    }

    /// A reportingDescriptor: one per lint rule or failure class.
    struct Rule: Codable, Hashable, Sendable {
        var id: String
        var shortDescription: Message?
        var helpUri: String?
        var defaultConfiguration: Configuration?
    }

    struct Configuration: Codable, Hashable, Sendable {
        var level: Level
    }

    enum Level: String, Codable, Hashable, Sendable {
        case error, warning, note, none
    }

    struct Message: Codable, Hashable, Sendable {
        var text: String
    }

    struct Result: Codable, Hashable, Sendable {
        var ruleId: String
        /// Index of the rule in `driver.rules`.
        var ruleIndex: Int?
        var level: Level
        var message: Message
        var locations: [Location]
        /// Where else the result points (the target URL a failed load was made to).
        var relatedLocations: [Location]?
    }

    struct Location: Codable, Hashable, Sendable {
        /// Required (>= 0) on related locations, which are referred to by id.
        var id: Int?
        var physicalLocation: PhysicalLocation
        var message: Message?
    }

    struct PhysicalLocation: Codable, Hashable, Sendable {
        var artifactLocation: ArtifactLocation
        /// nil for a binary plist or a URL: the whole artifact.
        var region: Region?
    }

    struct ArtifactLocation: Codable, Hashable, Sendable {
        var uri: String
    }

    struct Region: Codable, Hashable, Sendable {
        var startLine: Int
        var startColumn: Int
    }

    /// A file path as a SARIF uri: a relative path stays relative (code scanning resolves it
    /// against the repository root); an absolute one becomes file://. Every byte outside
    /// RFC 3986's unreserved set and "/" is percent-encoded, so spaces and untrusted names
    /// cannot break the URI.
    static func fileURI(_ path: String) -> String {
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
