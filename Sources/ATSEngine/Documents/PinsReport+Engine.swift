import ATSContract
import ATSPolicy
import TLSFacts

// `pins`' document (ATSContract's PinsReport) written from one handshake: the served chain's
// pins, the suggested NSPinnedDomains entry, and each --plist pin set judged against the chain.

extension PinsReport {
    package init(target: Target, result: ProbeResult, configuration: ATSConfiguration?) {
        switch result {
        case .failure(let failure):
            self.init(target: TargetReport(target), failure: failure, trust: nil, certificates: [], suggestedPinnedDomains: nil,
                      plistChecked: configuration != nil, pinChecks: [], pinsSatisfied: nil)
        case .success(let observation):
            let certificates = observation.chain.enumerated().map { index, certificate in
                Certificate(index: index, role: index == 0 ? "leaf" : "CA", subject: certificate.subject,
                            issuer: certificate.issuer, spkiSHA256Base64: certificate.spkiSHA256Base64)
            }
            let suggestion = PinningPolicy.suggestedPinnedDomains(host: target.host, chain: observation.chain)
            let checks = configuration.map { PinsReport.checks(host: target.host, chain: observation.trust.path ?? observation.chain, configuration: $0) } ?? []
            self.init(target: TargetReport(target), failure: nil, trust: observation.trust, certificates: certificates,
                      suggestedPinnedDomains: .dictionary(suggestion), plistChecked: configuration != nil, pinChecks: checks,
                      pinsSatisfied: configuration == nil ? nil : checks.allSatisfy(\.result.isSatisfied))
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
}
