import ATSContract
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts

/// One result of any command, placed where a SARIF reader shows it: at a key of an Info.plist
/// (line and column when the file has lines) or at the URL a target was loaded at. Commands
/// turn their findings into these; `ReportSARIF` makes the log, so every SARIF atsprobe writes
/// has one shape.
package struct SARIFFinding: Hashable, Sendable {
    package enum Place: Hashable, Sendable {
        /// A file, by its SARIF uri; `artifact` is its index in `run.artifacts` when it sits in
        /// another (an Info.plist in an .ipa); nil line for a file without lines (binary plist).
        case file(uri: String, artifact: Int?, line: Int?, column: Int?)
        /// The URL of a target (audit): the whole artifact, no region.
        case url(String)
    }

    /// The lint rule id, the tightening kind, or the failure class ("load/trust.expired").
    package var rule: String
    package var level: SARIFLog.Level
    /// For people; escaped already.
    package var message: String
    package var place: Place
    /// The URL of the load a result is about, when it is placed elsewhere (in the Info.plist).
    package var target: String?
    /// `partialFingerprints`' value: nil makes one of the rule, the place's file (not its line,
    /// which an edit moves), the target and the message.
    package var fingerprint: String?

    package init(rule: String, level: SARIFLog.Level, message: String, place: Place, target: String? = nil, fingerprint: String? = nil) {
        self.fingerprint = fingerprint
        self.rule = rule
        self.level = level
        self.message = message
        self.place = place
        self.target = target
    }
}

/// SARIF 2.1.0 logs for every command that writes them (plist lint, plist check, app, audit,
/// and `report` of an audit's records).
public enum ReportSARIF {
    /// The failure classes are `load/` + FailureReason.code, in every command.
    package static let loadRulePrefix = "load/"
    /// An audit target with no result within its deadline.
    package static let timeoutRule = "target/timeout"

    /// One run: `rules` in the driver (each result points at its rule by index), each result
    /// at its place, a target URL as a related location.
    package static func log(_ findings: [SARIFFinding], rules: [SARIFLog.Rule], artifacts: [SARIFLog.Artifact]? = nil,
                           toolVersion: String?) -> SARIFLog {
        let index = Dictionary(rules.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        let results = findings.map { finding in
            let physical: SARIFLog.PhysicalLocation
            switch finding.place {
            case .file(let uri, let artifact, let line, let column):
                let region = line.map { SARIFLog.Region(startLine: $0, startColumn: column) }
                physical = .init(artifactLocation: .init(uri: uri, index: artifact), region: region)
            case .url(let url):
                physical = .init(artifactLocation: .init(uri: SARIFLog.urlURI(url)), region: nil)
            }
            let related = finding.target.map { url in
                [SARIFLog.Location(id: 0, physicalLocation: .init(artifactLocation: .init(uri: SARIFLog.urlURI(url)), region: nil),
                                   message: .init(text: "the target loaded"))]
            }
            // The file by its path relative to the source root (the working directory CI runs in),
            // not its absolute path: the same Info.plist checked out elsewhere (another runner, a
            // temporary directory) is the same alert, and an app's and its extension's Info.plist
            // are two (issue 42).
            let file = sourceRelative(physical.artifactLocation.uri)
            let fingerprint = finding.fingerprint ?? Self.fingerprint([finding.rule, file, finding.target ?? "", finding.message])
            return SARIFLog.Result(ruleId: finding.rule, ruleIndex: index[finding.rule], level: finding.level,
                                   message: .init(text: finding.message), locations: [.init(physicalLocation: physical)],
                                   relatedLocations: related, partialFingerprints: [SARIFRules.fingerprintKey: fingerprint])
        }
        let driver = SARIFLog.Driver(name: "atsprobe", version: toolVersion, informationUri: SARIFRules.documentation,
                                     rules: rules.map(SARIFRules.described))
        return SARIFLog(runs: [.init(tool: .init(driver: driver), artifacts: artifacts, results: results)])
    }

    /// A SARIF uri as the fingerprint names its file: a relative one as it is (CI gives paths
    /// from the checkout's root); a file:// one relative to the working directory when under it;
    /// any other absolute path (a temporary directory, another machine's checkout) by its name
    /// alone, which no checkout changes.
    package static func sourceRelative(_ uri: String, root: String = FileManager.default.currentDirectoryPath) -> String {
        guard uri.hasPrefix("file://") else { return uri }
        let path = String(uri.dropFirst("file://".count))
        let prefix = SARIFLog.fileURI(root.hasSuffix("/") ? root : root + "/").dropFirst("file://".count)
        if path.hasPrefix(prefix) { return String(path.dropFirst(prefix.count)) }
        return path.split(separator: "/").last.map(String.init) ?? path
    }

    /// A rule for a failure class (`load/` + FailureReason.code), `under` the dictionary the
    /// load was made with ("default ATS", "the app's dictionary").
    package static func loadRule(_ id: String, under: String) -> SARIFLog.Rule {
        .init(id: id, shortDescription: .init(text: "a load fails under \(under): \(id.dropFirst(loadRulePrefix.count))"),
              defaultConfiguration: .init(level: .error))
    }

    /// A stable identity: FNV-1a (64 bits) of the parts, each ended by a NUL, in hex.
    package static func fingerprint(_ parts: [String]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for part in parts {
            for byte in part.utf8 + [0] {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01B3
            }
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Where an audit result sits: the `--input` file's line that named the target (the
    /// repository file CI checks in), else the target's URL (an argument, standard input).
    package static func place(url: String, input: String?, line: Int?) -> SARIFFinding.Place {
        guard let input, input != "-", let line else { return .url(url) }
        return .file(uri: SARIFLog.fileURI(input), artifact: nil, line: line, column: nil)
    }

    // MARK: audit

    /// An audit (live, or `report` of its records): each failing target's default connection,
    /// one result per failure class of its first test (nscurl's "ATS Default Connection")
    /// at the `--input` line that named the target (`run.input`; at the target's URL for an
    /// argument or standard input), the URL in the message; a warning when an exception makes it load, an error when none does
    /// or it was unreachable; a timed-out target under `target/timeout`. Error records (bad
    /// input lines) name no URL and are left out: stderr and exit 64 report them.
    /// One rule per failure class found, in first-seen order.
    public static func audit(_ report: Report) -> SARIFLog {
        var findings: [SARIFFinding] = []
        var rules: [SARIFLog.Rule] = []
        var seen: Set<String> = []
        func rule(_ id: String, _ make: () -> SARIFLog.Rule) {
            if seen.insert(id).inserted { rules.append(make()) }
        }
        for record in report.records {
            let name = ReportEscaping.text(record.name, limit: 300)
            // --forecast: warnings before the target fails (a passing target has them too).
            for (made, finding) in ReportForecast.sarifFindings(record) {
                rule(made.id) { made }
                findings.append(finding)
            }
            switch record.verdict {
            case .pass, .error:
                continue
            case .timeout:
                guard let url = record.target?.url else { continue }
                rule(timeoutRule) { .init(id: timeoutRule, shortDescription: .init(text: "no result within the audit's deadline"),
                                          defaultConfiguration: .init(level: .error)) }
                findings.append(.init(rule: timeoutRule, level: .error, message: "\(name): \(ReportEscaping.text(record.reason ?? "timed out"))",
                                      place: place(url: url, input: report.run?.input, line: record.line),
                                      fingerprint: fingerprint([timeoutRule, url])))
            case .exception, .noException, .unreachable:
                guard let url = record.target?.url else { continue }
                let level: SARIFLog.Level = record.verdict == .exception ? .warning : .error
                let outcome = switch record.verdict {
                case .exception: "; an exception makes it load: " + record.exceptionKeys.map { ReportEscaping.text("\($0.key)=\($0.value)") }.joined(separator: ", ")
                case .noException: "; no exception makes it load"
                default: ""
                }
                var codes: Set<String> = []
                for reason in record.tests.test(.defaultConnection)?.verdict.reasons ?? [] where codes.insert(reason.code).inserted {
                    let id = loadRulePrefix + reason.code
                    rule(id) { loadRule(id, under: "default ATS") }
                    findings.append(.init(rule: id, level: level,
                                          message: "\(name) fails default ATS: \(ReportEscaping.text(reason.message))\(outcome)",
                                          place: place(url: url, input: report.run?.input, line: record.line),
                                          fingerprint: fingerprint([id, url])))
                }
            }
        }
        return log(findings, rules: rules, toolVersion: report.run?.toolVersion)
    }
}

extension SARIFLog {
    /// A target URL as a SARIF uri: kept as written where it is already a URI's characters
    /// (RFC 3986 unreserved, reserved and "%"); every other byte (space, quotes, non-ASCII from
    /// an edited record) percent-encoded.
    package static func urlURI(_ url: String) -> String {
        var out = ""
        for byte in url.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case _ where "-._~:/?#[]@!$&'()*+,;=%".utf8.contains(byte):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out
    }
}
