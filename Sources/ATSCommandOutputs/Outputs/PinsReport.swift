import ATSReport
import ATSEngine
import ATSPolicy
import PropertyList
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts

/// What `pins` found: the served chain's SPKI pins, the suggested NSPinnedDomains entry, and
/// the judgement of each --plist pin set that applies to the host. Also the JSON document.
package struct PinsReport: Encodable {
    /// Set by the command: what the run was made with (docs/json-schema.md, "Run").
    package var run: RunInfo?
    /// One served certificate and its pin.
    package struct Certificate: Encodable {
        package let index: Int
        /// "leaf" or "CA" (any served certificate after the leaf).
        package let role: String
        package let subject: String
        package let issuer: String
        package let spkiSHA256Base64: String
    }

    /// One NSPinnedDomains entry that applies to the host, and whether the chain satisfies it.
    package struct PinCheck: Encodable {
        /// The entry's key, as written in the plist.
        package let domain: String
        /// The NSIncludesSubdomains readings under which the entry applies ("anyDepth", "oneLabel").
        package let readings: [String]
        package let pins: PinSet
        package let result: PinResult
    }

    package let schemaVersion = jsonSchemaVersion
    package let target: TargetReport
    package let outcome: String
    package let failure: ProbeFailure?
    package let trust: TrustEvaluation?
    package let certificates: [Certificate]
    package let suggestedPinnedDomains: PropertyListValue?
    /// Whether --plist was given.
    package let plistChecked: Bool
    package let pinChecks: [PinCheck]
    /// nil without --plist or when no handshake was made; true when every applicable pin set is met.
    package let pinsSatisfied: Bool?
    /// The suggestion as property-list values, for the plist output.
    private let suggestion: [String: PropertyListValue]?

    private enum CodingKeys: String, CodingKey {
        case schemaVersion, target, outcome, failure, trust, certificates, suggestedPinnedDomains,
             plistChecked, pinChecks, pinsSatisfied
    }

    package init(target: Target, result: ProbeResult, configuration: ATSConfiguration?) {
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
    package static func checks(host: String, chain: [CertificateFacts], configuration: ATSConfiguration) -> [PinCheck] {
        guard let found = configuration.pinnedDomain(host: host) else { return [] }
        return [PinCheck(domain: found.key, readings: SubdomainReading.allCases.map(\.rawValue), pins: found.pins,
                         result: PinningPolicy.evaluate(chain: chain, pins: found.pins))]
    }

    /// Unreachable when nothing spoke TLS; findings when the handshake failed or a --plist
    /// pin set is not satisfied; else clear.
    package var severity: AuditSeverity {
        if let failure { return failure.isUnreachable ? .unreachable : .findings }
        return pinsSatisfied == false ? .findings : .clear
    }

    /// The suggested dictionary inside NSAppTransportSecurity, as an XML plist; nil without a handshake.
    package func plistText() throws -> String? {
        guard let suggestion else { return nil }
        let data = try PropertyListFile.write([ATSKey.appTransportSecurity.name: .dictionary(suggestion)], format: .xml)
        return String(decoding: data, as: UTF8.self)
    }
}
