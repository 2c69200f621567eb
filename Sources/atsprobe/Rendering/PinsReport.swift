import ATSPolicy
import ATSReport
import PropertyList
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts

/// What `pins` found: the served chain's SPKI pins, the suggested NSPinnedDomains entry, and
/// the judgement of each --plist pin set that applies to the host. Also the JSON document.
struct PinsReport: Encodable {
    /// Set by the command: what the run was made with (docs/json-schema.md, "Run").
    var run: RunInfo?
    /// One served certificate and its pin.
    struct Certificate: Encodable {
        let index: Int
        /// "leaf" or "CA" (any served certificate after the leaf).
        let role: String
        let subject: String
        let issuer: String
        let spkiSHA256Base64: String
    }

    /// One NSPinnedDomains entry that applies to the host, and whether the chain satisfies it.
    struct PinCheck: Encodable {
        /// The entry's key, as written in the plist.
        let domain: String
        /// The NSIncludesSubdomains readings under which the entry applies ("anyDepth", "oneLabel").
        let readings: [String]
        let pins: PinSet
        let result: PinResult
    }

    let schemaVersion = jsonSchemaVersion
    let target: TargetReport
    let outcome: String
    let failure: ProbeFailure?
    let trust: TrustEvaluation?
    let certificates: [Certificate]
    let suggestedPinnedDomains: PropertyListValue?
    /// Whether --plist was given.
    let plistChecked: Bool
    let pinChecks: [PinCheck]
    /// nil without --plist or when no handshake was made; true when every applicable pin set is met.
    let pinsSatisfied: Bool?
    /// The suggestion as property-list values, for the plist output.
    private let suggestion: [String: PropertyListValue]?

    private enum CodingKeys: String, CodingKey {
        case schemaVersion, target, outcome, failure, trust, certificates, suggestedPinnedDomains,
             plistChecked, pinChecks, pinsSatisfied
    }

    init(target: Target, result: ProbeResult, configuration: ATSConfiguration?) {
        self.target = TargetReport(target)
        plistChecked = configuration != nil
        switch result {
        case .failure(let failure):
            outcome = "failure"
            self.failure = failure
            trust = nil
            certificates = []
            suggestion = nil
            suggestedPinnedDomains = nil
            pinChecks = []
            pinsSatisfied = nil
        case .success(let observation):
            outcome = "handshake"
            failure = nil
            trust = observation.trust
            certificates = observation.chain.enumerated().map { index, certificate in
                Certificate(index: index, role: index == 0 ? "leaf" : "CA", subject: certificate.subject,
                            issuer: certificate.issuer, spkiSHA256Base64: certificate.spkiSHA256Base64)
            }
            let suggestion = PinningPolicy.suggestedPinnedDomains(host: target.host, chain: observation.chain)
            self.suggestion = suggestion
            suggestedPinnedDomains = .dictionary(suggestion)
            let checks = configuration.map { PinsReport.checks(host: target.host, chain: observation.trust.path ?? observation.chain, configuration: $0) } ?? []
            pinChecks = checks
            pinsSatisfied = configuration == nil ? nil : checks.allSatisfy(\.result.isSatisfied)
        }
    }

    /// The pins that apply to `host`, judged once. Apple's pin lookup (SecPolicy.c
    /// `parseNSPinnedDomains`, `ATSConfiguration.pinnedDomain(host:)`) reaches one label up only,
    /// which both NSIncludesSubdomains readings agree on, so there is one check under both.
    static func checks(host: String, chain: [CertificateFacts], configuration: ATSConfiguration) -> [PinCheck] {
        guard let found = configuration.pinnedDomain(host: host) else { return [] }
        return [PinCheck(domain: found.key, readings: SubdomainReading.allCases.map(\.rawValue), pins: found.pins,
                         result: PinningPolicy.evaluate(chain: chain, pins: found.pins))]
    }

    var exitStatus: ExitStatus {
        if let failure { return failure.isUnreachable ? .unreachable : .findings }
        return pinsSatisfied == false ? .findings : .clear
    }

    /// The suggested dictionary inside NSAppTransportSecurity, as an XML plist; nil without a handshake.
    func plistText() throws -> String? {
        guard let suggestion else { return nil }
        let data = try PropertyListFile.write([ATSKey.appTransportSecurity.name: .dictionary(suggestion)], format: .xml)
        return String(decoding: data, as: UTF8.self)
    }
}
