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
/// log list, and optionally a caIssuers source for intermediates the chain leaves out. The one
/// chain judge: `atsprobe cert` (and ATSEngine's `Run.judge(_:name:)`) runs it with ATSProbe's
/// `NetworkIssuerFetching`, and a handshake's chain goes through the same evaluation
/// (ATSTrust's `ChainTrust`, then `ChainJudgement`), so the three answer alike.
///
///     let verifier = try ChainVerifier(at: Date(), ruleSet: .current)
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

    /// A verifier over anchors already read (`store`, read from `anchors`): a run's, whose
    /// prober read them once.
    package init(store: TrustStore, anchors: AnchorConfiguration, at instant: Date, ruleSet: RuleSet, ctLogs: CTLogList,
                 issuers: (any IssuerFetching)?) {
        self.anchors = anchors
        self.instant = instant
        self.ruleSet = ruleSet
        self.ctLogs = ctLogs
        self.issuers = issuers
        self.store = store
    }

    /// `chain`, leaf first, judged for `name` (a DNS name or an IP address): trust, Apple's
    /// certificate rules and CT, each failure with its Apple source and fix.
    public func judge(_ chain: CertificateChain, name: String) async -> ChainJudgement {
        let (facts, evaluation) = await evaluate(chain, name: name)
        return ChainJudgement(given: facts, trust: evaluation, name: name, rules: ruleSet.certificateRules, logs: ctLogs)
    }

    /// The chain's certificates as read (the leaf's SCTs checked) and its trust evaluation at
    /// `instant`: what `judge` judges, and what `cert --forecast` judges again at later instants.
    package func evaluate(_ chain: CertificateChain, name: String) async -> (chain: [CertificateFacts], trust: TrustEvaluation) {
        let source = issuers.map { IssuerFetchingSource(fetching: $0, target: name) }
        let trust = ChainTrust(store: store, anchors: anchors, date: instant, verifier: SCTVerifier(keys: ctLogs.keys),
                               evaluations: TrustEvaluationCache())
        // The policy is the source's own business; the default one keys the evaluation like a probe's.
        let policy = IssuerFetchAddressPolicy(targetAddress: name, allowPrivateFetch: false)
        let (judged, evaluation) = await trust.judge(served: chain.chain.certificates.map(ServedCertificate.init), name: name,
                                                     source: source, policy: policy,
                                                     fetchedIssuer: { source?.issuer(of: $0) })
        return (judged.map(\.facts), evaluation)
    }
}
