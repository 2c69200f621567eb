import TextSupport
import TLSFacts

/// Judges one load the way URLSession under ATS would: the handshake under the policy's offer,
/// default trust evaluation (2A, always), then the ATS extended checks (2B, when ATS is required).
public enum ATSEvaluator {
    /// `result` should come from the offer `policy.clientOffer(ruleSet:)`. Facts outside that
    /// offer (a broader probe reused) are still judged: the client would not have accepted them.
    /// `certificateViolations` are the Apple certificate rules the chain breaks (2A), judged by
    /// the caller at its instant (`AppleCertificatePolicy.violations`); they fail every
    /// configuration, like trust problems. No default: an empty list judges no rule.
    public static func evaluate(_ result: ProbeResult, under policy: EffectivePolicy, ruleSet: RuleSet,
                                certificateViolations: [CertificateRuleViolation]) -> Verdict {
        if policy.scheme == .http {
            return evaluateCleartext(result, under: policy, ruleSet: ruleSet)
        }
        switch result {
        case .failure(let failure):
            let (reason, error) = judge(failure, policy: policy, ruleSet: ruleSet)
            return .fail([reason], error)
        case .success(let observation):
            let context = LoadCheckContext(observation: observation, policy: policy, ruleSet: ruleSet,
                                           certificateViolations: certificateViolations)
            let reasons = loadChecks.flatMap { $0.failures(context) }
            // The client stops at the first failure; its error is the one reported.
            guard let first = reasons.first else { return .pass }
            return .fail(reasons, AppleErrorCodes.error(for: first.kind, layer: first.layer, host: policy.host))
        }
    }

    /// What ATS checks of a completed handshake, in the order a client meets them: the offer
    /// (protocol, suite), default trust evaluation (2A: chain, Apple's certificate rules, pins),
    /// then the ATS extended requirements (2B: leaf key size, leaf hash), then the request.
    /// A new check is one file and one line here.
    package static let loadChecks: [any LoadCheck] = [
        ProtocolVersionCheck(),
        CipherSuiteCheck(),
        CertificateTrustCheck(),
        CertificateRulesCheck(),
        PinningCheck(),
        LeafKeySizeCheck(),
        LeafSignatureHashCheck(),
        HTTPExchangeCheck(),
    ]

    /// A redirect hop: an http:// target fails with -1022 unless the hop's policy allows
    /// insecure loads. An https:// hop passes here; its own handshake is judged with `evaluate`.
    public static func evaluateRedirect(to target: Target, under policy: EffectivePolicy) -> Verdict {
        guard target.scheme == .http, !policy.allowsInsecureHTTP else { return .pass }
        return .fail([cleartextReason(target.host)],
                     AppleErrorCodes.error(for: .cleartextBlocked, layer: .cleartext).failing(url: target.url))
    }

    /// The same, computing the hop's policy from the configuration (the hop may be another host).
    public static func evaluateRedirect(to target: Target, under configuration: ATSConfiguration, ruleSet: RuleSet,
                                        subdomainReading: SubdomainReading = .anyDepth) -> Verdict {
        let policy = EffectivePolicy(configuration: configuration, host: target.host, scheme: target.scheme,
                                     ruleSet: ruleSet, subdomainReading: subdomainReading)
        return evaluateRedirect(to: target, under: policy)
    }

    // MARK: - Cleartext

    private static func cleartextReason(_ host: String) -> FailureReason {
        FailureReason(.cleartextBlocked, layer: .cleartext,
                      "http:// to \(UntrustedText.escape(host, limit: 255)) is blocked: ATS requires a secure connection")
    }

    private static func evaluateCleartext(_ result: ProbeResult, under policy: EffectivePolicy, ruleSet: RuleSet) -> Verdict {
        switch result {
        case .failure(let failure): return evaluateCleartext(.failure(failure), under: policy, ruleSet: ruleSet)
        case .success(let observation):
            return evaluateCleartext(.success(observation.http ?? HTTPExchange(statusCode: nil, failure: "no response")),
                                     under: policy, ruleSet: ruleSet)
        }
    }

    /// An http:// load that ATS allowed and atsprobe made (nil: ATS blocked it before any
    /// connection, -1022). A refused port is -1004, a port that never answers -1001, a lost
    /// connection -1005; any HTTP response, error statuses included, is a completed load.
    public static func evaluateCleartext(_ result: Result<HTTPExchange, ProbeFailure>?, under policy: EffectivePolicy,
                                         ruleSet: RuleSet) -> Verdict {
        guard policy.allowsInsecureHTTP, let result else {
            return .fail([cleartextReason(policy.host)], AppleErrorCodes.error(for: .cleartextBlocked, layer: .cleartext))
        }
        switch result {
        case .failure(let failure) where failure.kind == .connectTimeout || failure.kind == .handshakeTimeout:
            let kind: FailureReason.Kind = failure.kind == .connectTimeout ? .unreachable(failure.kind) : .httpFailure
            // Either timeout is NSURLErrorTimedOut, whether the connection or the exchange stalled.
            return .fail([FailureReason(kind, layer: .connection, "timed out: " + UntrustedText.escape(failure.detail, limit: 200))],
                         AppleErrorCodes.error(for: .unreachable(failure.kind), layer: .connection))
        case .failure(let failure):
            let (reason, error) = judge(failure, policy: policy, ruleSet: ruleSet)
            return .fail([reason], error)
        case .success(let exchange):
            guard let failure = exchange.failure else { return .pass }
            return .fail([FailureReason(.httpFailure, layer: .connection,
                                        "the http:// request failed: \(UntrustedText.escape(failure, limit: 200))")],
                         AppleErrorCodes.error(for: .httpFailure, layer: .connection))
        }
    }

    /// A redirect loop or a 17th redirect: URLSession stops with NSURLErrorHTTPTooManyRedirects.
    /// `loop` is the URLs from the first visit of the repeated URL back to it.
    public static func tooManyRedirects(limit: Int, loop: [String]?, failingURL: String) -> Verdict {
        let message: String
        if let loop {
            message = "redirect loop: " + loop.map { UntrustedText.escape($0, limit: 200) }.joined(separator: " -> ")
        } else {
            message = "more than \(limit) redirects (URLSession follows at most \(limit))"
        }
        return .fail([FailureReason(.tooManyRedirects, layer: .connection, message)],
                     AppleErrorCodes.error(for: .tooManyRedirects, layer: .connection).failing(url: failingURL))
    }

    // MARK: - Handshake failures

    static func judge(_ failure: ProbeFailure, policy: EffectivePolicy, ruleSet: RuleSet) -> (FailureReason, AppleError) {
        let reason = reason(for: failure, policy: policy, ruleSet: ruleSet)
        return (reason, AppleErrorCodes.error(for: reason.kind, layer: reason.layer, alert: failure.alert, host: policy.host))
    }

    static func reason(for failure: ProbeFailure, policy: EffectivePolicy, ruleSet: RuleSet) -> FailureReason {
        let detail = failure.detail.isEmpty ? "" : ": " + UntrustedText.escape(failure.detail, limit: 200)
        let offer = policy.clientOffer(ruleSet: ruleSet)
        let range = "\(offer.minVersion)-\(offer.maxVersion)"
        let alert = failure.alert.map { " (\($0.name) alert)" } ?? ""
        switch failure.kind {
        case .nameNotResolved:
            return FailureReason(.unreachable(failure.kind), layer: .connection, "the host name did not resolve" + detail)
        case .nameResolutionTimeout:
            return FailureReason(.unreachable(failure.kind), layer: .connection, "the host name was not resolved in time" + detail)
        case .connectionRefused:
            return FailureReason(.unreachable(failure.kind), layer: .connection, "connection refused" + detail)
        case .networkUnreachable:
            return FailureReason(.unreachable(failure.kind), layer: .connection, "network unreachable" + detail)
        case .connectTimeout, .handshakeTimeout:
            let what = failure.kind == .connectTimeout ? "connecting" : "during the handshake"
            let kind: FailureReason.Kind = failure.kind == .connectTimeout ? .unreachable(failure.kind) : .handshakeFailed(failure.kind)
            return FailureReason(kind, layer: .connection, "timed out \(what)" + detail)
        case .notTLS:
            return FailureReason(.unreachable(failure.kind), layer: .connection, "the server did not answer with TLS" + detail)
        case .noSharedProtocol:
            let message = offer.minVersion == ruleSet.platformMinimumVersion && !policy.atsApplies
                ? "server accepts no protocol the platform speaks (\(range))\(alert)"
                : "server accepts no protocol in \(range)\(alert)"
            return FailureReason(.handshakeFailed(failure.kind), layer: .handshake, message + detail)
        case .noSharedCipher:
            return FailureReason(.handshakeFailed(failure.kind), layer: .handshake,
                                 "server has no cipher suite in common with the \(offer.suites.count) offered (\(range))\(alert)" + detail)
        case .tlsAlert:
            return FailureReason(.handshakeFailed(failure.kind), layer: .handshake, "server sent a fatal alert\(alert)" + detail)
        case .closedDuringHandshake, .resetDuringHandshake:
            let what = failure.kind == .closedDuringHandshake ? "closed" : "reset"
            return FailureReason(.handshakeFailed(failure.kind), layer: .handshake, "server \(what) the connection during the handshake" + detail)
        case .clientRejected:
            return FailureReason(.handshakeFailed(failure.kind), layer: .handshake, "the server's choice was outside the offer" + detail)
        case .cancelled:
            return FailureReason(.handshakeFailed(failure.kind), layer: .connection, "stopped before the load ended" + detail)
        case .protocolViolation:
            return FailureReason(.handshakeFailed(failure.kind), layer: .handshake, "the server broke the TLS protocol" + detail)
        case .localResources:
            // Not the server's doing; callers report it as a local failure before any verdict.
            return FailureReason(.handshakeFailed(failure.kind), layer: .connection, "this machine ran out of resources" + detail)
        case .other:
            return FailureReason(.handshakeFailed(failure.kind), layer: .handshake, "handshake failed" + detail)
        }
    }
}
