import ATSPolicy
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts

/// Judges a certificate chain as an Apple device judges an SSL server's chain for a name, without
/// a socket, a `Prober`, threads or a runtime: the anchors (Apple's root store built in, the
/// user's roots, or anchors an app sets), one instant, the rule set's certificate rules and a CT
/// log list, and optionally a caIssuers source for intermediates the chain leaves out. The same
/// evaluation as a handshake's and `atsprobe cert`'s (ATSTrust's `ChainTrust`, then
/// `ChainJudgement`), so the three answer alike.
///
///     let verifier = try ChainVerifier(at: Date())
///     let judgement = await verifier.judge(try CertificateChain(pem: bytes), name: "example.com")
///     print(judgement.trusted, judgement.failures.map(\.rule))
public struct ChainVerifier: Sendable {
    public let anchors: AnchorConfiguration
    /// The instant every certificate is judged at.
    public let instant: Date
    public let ruleSet: RuleSet
    /// The CT logs SCTs are judged against; their keys check the SCTs' signatures.
    public let ctLogs: CTLogList
    /// Where left-out issuers are fetched; nil: never (as watchOS).
    public let issuers: (any IssuerFetching)?
    private let store: TrustStore

    /// Reads the anchors once; throws when a file of anchors cannot be read.
    public init(anchors: AnchorConfiguration = AnchorConfiguration(), at instant: Date, ruleSet: RuleSet,
                ctLogs: CTLogList = .apple, issuers: (any IssuerFetching)? = nil) throws(TrustSetupError) {
        self.anchors = anchors
        self.instant = instant
        self.ruleSet = ruleSet
        self.ctLogs = ctLogs
        self.issuers = issuers
        store = try TrustStore(options: anchors)
    }

    /// `chain`, leaf first, judged for `name` (a DNS name or an IP address): trust, Apple's
    /// certificate rules and CT, each failure with its Apple source and fix.
    public func judge(_ chain: CertificateChain, name: String) async -> ChainJudgement {
        let source = issuers.map { IssuerFetchingSource(fetching: $0, target: name) }
        let trust = ChainTrust(store: store, anchors: anchors, date: instant, verifier: SCTVerifier(keys: ctLogs.keys),
                               evaluations: TrustEvaluationCache())
        // The policy is the source's own business; the default one keys the evaluation like a probe's.
        let policy = IssuerFetchAddressPolicy(targetAddress: name, allowPrivateFetch: false)
        let (judged, evaluation) = await trust.judge(served: chain.chain.certificates.map(ServedCertificate.init), name: name,
                                                     source: source, policy: policy,
                                                     fetchedIssuer: { source?.issuer(of: $0) })
        return ChainJudgement(given: judged.map(\.facts), trust: evaluation, name: name, rules: ruleSet.certificateRules, logs: ctLogs)
    }
}
