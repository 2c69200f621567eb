import ATSAdvice
import ATSPolicy
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PropertyList
import TLSFacts

/// `--format json` for the diagnostics (docs/json-schema.md): one target's whole run. Stable;
/// versioned by schemaVersion. Written from the engine's `DiagnosticsReport` (ATSReport's
/// `DiagnosticsJSON+Engine.swift`) and read back by `atsprobe report` as the same type, so a
/// report of the file equals the live one.
public struct DiagnosticsJSON: Codable, Sendable {
    public let schemaVersion: Int
    public let target: TargetReport
    public let ruleSet: String
    public let handshakes: Int
    public let wallMilliseconds: Double
    public let reachability: String
    public let defaultPasses: Bool
    public package(set) var tests: [TestJSON]
    public let suggestion: SuggestionJSON
    /// What the run was made with (docs/json-schema.md, "run"); absent only from schema 1 files.
    public let run: RunInfo?
    /// When this target's diagnostics ended (whole seconds); absent only from schema 1 files.
    public let finishedAt: Date?
    /// The summary's warning and server fix when the best handshake's chain lacked an
    /// intermediate (fetched from caIssuers); absent otherwise.
    public let missingIntermediate: MissingIntermediate?
    /// `--forecast` (docs/json-schema.md, "Forecast"): the window, each change within it, and the
    /// renewal check; all three absent without the option.
    public let forecastWindow: ForecastWindowJSON?
    public let forecast: [ForecastChangeJSON]?
    public let renewal: RenewalJSON?
    /// What the live run knows beyond the document, for nscurl's text summary
    /// (`DiagnosticsText`): never encoded, nil in a document read from a file.
    package var live: Live?

    private enum CodingKeys: String, CodingKey {
        case schemaVersion, target, ruleSet, handshakes, wallMilliseconds, reachability, defaultPasses, tests, suggestion, run,
             finishedAt, missingIntermediate, forecastWindow, forecast, renewal
    }

    /// Read with every number in range (`CheckedNumber`) and the default connection's outcome
    /// equal to its test's (found by role), as the live run derives it (`DiagnosticsReport.defaultPasses`):
    /// a document that contradicts itself is bad input, never a verdict (docs/reports.md).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        schemaVersion = try c.decode(Int.self, forKey: .schemaVersion)
        target = try c.decode(TargetReport.self, forKey: .target)
        ruleSet = try c.decode(String.self, forKey: .ruleSet)
        handshakes = try CheckedNumber.integer(c, .handshakes, in: CheckedNumber.handshakeRange, "0 to 1000000")
        wallMilliseconds = try CheckedNumber.real(c, .wallMilliseconds, in: CheckedNumber.wallMillisecondsRange, "0 to 2592000000 ms, 30 days")
        reachability = try c.decode(String.self, forKey: .reachability)
        defaultPasses = try c.decode(Bool.self, forKey: .defaultPasses)
        tests = try c.decode([TestJSON].self, forKey: .tests)
        guard defaultPasses == (tests.test(.defaultConnection)?.verdict.passed ?? false) else {
            throw DecodingError.dataCorruptedError(forKey: .defaultPasses, in: c,
                                                   debugDescription: "\(defaultPasses) disagrees with the default connection's test")
        }
        suggestion = try c.decode(SuggestionJSON.self, forKey: .suggestion)
        run = try c.decodeIfPresent(RunInfo.self, forKey: .run)
        finishedAt = try c.decodeIfPresent(Date.self, forKey: .finishedAt)
        missingIntermediate = try c.decodeIfPresent(MissingIntermediate.self, forKey: .missingIntermediate)
        forecastWindow = try c.decodeIfPresent(ForecastWindowJSON.self, forKey: .forecastWindow)
        forecast = try c.decodeIfPresent([ForecastChangeJSON].self, forKey: .forecast)
        renewal = try c.decodeIfPresent(RenewalJSON.self, forKey: .renewal)
    }

    /// The summary's facts the JSON does not carry, from the engine's report (ATSEngine's
    /// `DiagnosticsJSON+Engine.swift`). One reference, so a document stays small wherever it is copied.
    package final class Live: Sendable {
        /// The run's wall time as measured (the JSON's is rounded to 0.1 ms).
        package let wallMilliseconds: Double
        /// The handshake with the most to say: the widest successful one, the widest-offer
        /// handshake's included (the summary's "Server" and "Trust" lines).
        package let server: Observation?
        /// The run made the widest-offer handshake (no test completed one).
        package let widestOffer: Bool
        /// The rule set judged by, as a value (a rule set built by code has no name to look up).
        package let ruleSet: RuleSet
        /// The rule set's groups this build's OpenSSL cannot offer (`--verbose`'s "Not sent").
        package let groupsNotSent: [NamedGroup]

        package init(wallMilliseconds: Double, server: Observation?, widestOffer: Bool, ruleSet: RuleSet, groupsNotSent: [NamedGroup]) {
            self.wallMilliseconds = wallMilliseconds
            self.server = server
            self.widestOffer = widestOffer
            self.ruleSet = ruleSet
            self.groupsNotSent = groupsNotSent
        }
    }

    public struct MissingIntermediate: Codable, Sendable {
        public let warning: String
        public let fix: String

        public init(warning: String, fix: String) {
            self.warning = warning
            self.fix = fix
        }
    }

    /// A document of this schema version; `finishedAt` and the wall time as the JSON carries them.
    public init(target: TargetReport, ruleSet: String, handshakes: Int, wallMilliseconds: Double, reachability: String,
                defaultPasses: Bool, tests: [TestJSON], suggestion: SuggestionJSON, run: RunInfo, finishedAt: Date,
                missingIntermediate: MissingIntermediate?, forecastWindow: ForecastWindowJSON? = nil,
                forecast: [ForecastChangeJSON]? = nil, renewal: RenewalJSON? = nil) {
        schemaVersion = jsonSchemaVersion
        self.run = run
        self.finishedAt = Date(timeIntervalSince1970: finishedAt.timeIntervalSince1970.rounded(.down))
        self.target = target
        self.ruleSet = ruleSet
        self.handshakes = handshakes
        self.wallMilliseconds = (wallMilliseconds * 10).rounded() / 10
        self.reachability = reachability
        self.defaultPasses = defaultPasses
        self.tests = tests
        self.suggestion = suggestion
        self.missingIntermediate = missingIntermediate
        self.forecastWindow = forecastWindow
        self.forecast = forecast
        self.renewal = renewal
    }

    public struct TestJSON: Codable, Sendable {
        public let section: String
        public let title: String
        public let dictionary: PropertyListValue
        public let result: String
        public let verdict: Verdict
        public package(set) var hops: [HopJSON]

        public init(section: String, title: String, configuration: ATSConfiguration, verdict: Verdict, hops: [HopJSON]) {
            self.section = section
            self.title = title
            dictionary = .dictionary(configuration.propertyList)
            result = verdict.passed ? "PASS" : "FAIL"
            self.verdict = verdict
            self.hops = hops
        }

        /// What the test asks, known by its title (`NSCurlMatrix.role(titled:)`: a file names its
        /// tests by title); nil for a title that is not one of nscurl's.
        package var role: DiagnosticRole? { NSCurlMatrix.role(titled: title) }

        private enum CodingKeys: String, CodingKey { case section, title, dictionary, result, verdict, hops }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            section = try c.decode(String.self, forKey: .section)
            title = try c.decode(String.self, forKey: .title)
            dictionary = try CheckedNumber.plist(c, .dictionary)
            result = try c.decode(String.self, forKey: .result)
            verdict = try c.decode(Verdict.self, forKey: .verdict)
            guard result == (verdict.passed ? "PASS" : "FAIL") else {
                throw DecodingError.dataCorruptedError(forKey: .result, in: c, debugDescription: "disagrees with the test's verdict")
            }
            hops = try c.decode([HopJSON].self, forKey: .hops)
        }
    }

    public struct HopJSON: Codable, Sendable, Equatable {
        public let url: String
        public let offer: ClientOffer?
        public let observation: Observation?
        public let failure: ProbeFailure?
        /// The response to an http:// hop loaded in cleartext.
        public let http: HTTPExchange?

        public init(url: String, offer: ClientOffer?, result: ProbeResult?, http: HTTPExchange?) {
            self.url = url
            self.offer = offer
            self.http = http
            switch result {
            case .success(let o)?: observation = o; failure = nil
            case .failure(let f)?: observation = nil; failure = f
            case nil: observation = nil; failure = nil
            }
        }
    }

    public struct SuggestionJSON: Codable, Sendable {
        public let kind: String
        public let domain: String?
        public let exception: PropertyListValue?
        /// Per key, the observation that made it necessary.
        public let evidence: [KeyEvidence]?
        /// Per weakening key, the server change that would make it unnecessary.
        public let fixes: [ServerFix]?
        public let reason: String?

        /// Without the handshakes: evidence as the advisor gave it, fixes without the leaf's key type,
        /// under the run's rule set (never the default in its place).
        public init(_ suggestion: ExceptionSuggestion, ruleSet: RuleSet) {
            self.init(HostAdvice(target: "", host: "", suggestion: suggestion, observations: [], ruleSet: ruleSet))
        }

        public init(_ advice: HostAdvice) {
            switch advice.suggestion {
            case .none:
                kind = "none"; domain = nil; exception = nil; evidence = nil; fixes = nil; reason = nil
            case .exception(let d, let e, _):
                kind = "exception"; domain = d; exception = .dictionary(e.propertyList); evidence = advice.evidence
                fixes = advice.fixes; reason = nil
            case .impossible(let r):
                kind = "impossible"; domain = nil; exception = nil; evidence = nil; fixes = advice.fixes; reason = r
            }
        }

        private enum CodingKeys: String, CodingKey { case kind, domain, exception, evidence, fixes, reason }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            kind = try c.decode(String.self, forKey: .kind)
            guard ["none", "exception", "impossible"].contains(kind) else {
                throw DecodingError.dataCorruptedError(forKey: .kind, in: c, debugDescription: "unknown suggestion kind")
            }
            domain = try c.decodeIfPresent(String.self, forKey: .domain)
            exception = try c.contains(.exception) ? CheckedNumber.plist(c, .exception) : nil
            if kind == "exception", domain == nil || exception?.dictionaryValue == nil {
                throw DecodingError.dataCorruptedError(forKey: .exception, in: c,
                                                       debugDescription: "an exception needs a domain and a dictionary")
            }
            evidence = try c.decodeIfPresent([KeyEvidence].self, forKey: .evidence)
            fixes = try c.decodeIfPresent([FixReading].self, forKey: .fixes)?.map(\.fix)
            reason = try c.decodeIfPresent(String.self, forKey: .reason)
        }

        /// The suggestion as the advisor's value (its rationale the evidence written): what the
        /// suggested dictionary and `--merge` are built from.
        package var suggestion: ExceptionSuggestion {
            switch kind {
            case DiagnosticsJSON.exceptionKind:
                guard let domain, let dictionary = exception?.dictionaryValue else { return .none }
                return .exception(domain: domain, DomainException(propertyList: dictionary), rationale: evidence ?? [])
            case "impossible": return .impossible(reason: reason ?? "")
            default: return .none
            }
        }
    }

    /// A server fix as read back: `haproxy` is absent from schema 1 files.
    private struct FixReading: Decodable {
        let fix: ServerFix

        private enum CodingKeys: String, CodingKey { case keys, change, nginx, apache, haproxy }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            fix = ServerFix(keys: try c.decode([String].self, forKey: .keys), change: try c.decode(String.self, forKey: .change),
                            nginx: try c.decode([String].self, forKey: .nginx), apache: try c.decode([String].self, forKey: .apache),
                            haproxy: try c.decodeIfPresent([String].self, forKey: .haproxy) ?? [])
        }
    }
}

extension Array where Element == DiagnosticsJSON.TestJSON {
    /// The test with `role` (nil when the document has none): never a test by its place.
    package func test(_ role: DiagnosticRole) -> DiagnosticsJSON.TestJSON? { first { $0.role == role } }
}
