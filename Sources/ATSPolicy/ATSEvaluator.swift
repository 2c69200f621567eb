import TLSFacts

/// Judges one load the way URLSession under ATS would: the handshake under the policy's offer,
/// default trust evaluation (2A, always), then the ATS extended checks (2B, when ATS is required).
public enum ATSEvaluator {
    /// `result` should come from the offer `policy.clientOffer(ruleSet:)`. Facts outside that
    /// offer (a broader probe reused) are still judged: the client would not have accepted them.
    /// `certificateViolations` are the Apple certificate rules the chain breaks (2A); they fail
    /// every configuration, like trust problems.
    public static func evaluate(_ result: ProbeResult, under policy: EffectivePolicy, ruleSet: RuleSet,
                                certificateViolations: [CertificateRuleViolation] = []) -> Verdict {
        if policy.scheme == .http {
            return evaluateCleartext(result, under: policy, ruleSet: ruleSet)
        }
        switch result {
        case .failure(let failure):
            let (reason, error) = judge(failure, policy: policy, ruleSet: ruleSet)
            return .fail([reason], error)
        case .success(let observation):
            let findings = judge(observation, policy: policy, ruleSet: ruleSet, violations: certificateViolations)
            guard let first = findings.first else { return .pass }
            return .fail(findings.map(\.0), first.1)
        }
    }

    /// A redirect hop: an http:// target fails with -1022 unless the hop's policy allows
    /// insecure loads. An https:// hop passes here; its own handshake is judged with `evaluate`.
    public static func evaluateRedirect(to target: Target, under policy: EffectivePolicy) -> Verdict {
        guard target.scheme == .http, !policy.allowsInsecureHTTP else { return .pass }
        return .fail([cleartextReason(target.host)],
                     AppleError(code: AppleError.appTransportSecurityRequiresSecureConnection, failingURL: target.url))
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
            return .fail([cleartextReason(policy.host)],
                         AppleError(code: AppleError.appTransportSecurityRequiresSecureConnection))
        }
        switch result {
        case .failure(let failure) where failure.kind == .connectTimeout || failure.kind == .handshakeTimeout:
            let kind: FailureReason.Kind = failure.kind == .connectTimeout ? .unreachable(failure.kind) : .httpFailure
            return .fail([FailureReason(kind, layer: .connection, "timed out: " + UntrustedText.escape(failure.detail, limit: 200))],
                         AppleError(code: AppleError.timedOut, streamErrorCode: -2102, streamErrorDomain: 4))
        case .failure(let failure):
            let (reason, error) = judge(failure, policy: policy, ruleSet: ruleSet)
            return .fail([reason], error)
        case .success(let exchange):
            guard let failure = exchange.failure else { return .pass }
            return .fail([FailureReason(.httpFailure, layer: .connection,
                                        "the http:// request failed: \(UntrustedText.escape(failure, limit: 200))")],
                         AppleError(code: AppleError.networkConnectionLost, streamErrorCode: -4, streamErrorDomain: 4))
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
                     AppleError(code: AppleError.httpTooManyRedirects, failingURL: failingURL))
    }

    // MARK: - Handshake failures

    static func judge(_ failure: ProbeFailure, policy: EffectivePolicy, ruleSet: RuleSet) -> (FailureReason, AppleError) {
        let detail = failure.detail.isEmpty ? "" : ": " + UntrustedText.escape(failure.detail, limit: 200)
        let offer = policy.clientOffer(ruleSet: ruleSet)
        let range = "\(offer.minVersion)-\(offer.maxVersion)"
        let alert = failure.alert.map { " (\($0.name) alert)" } ?? ""
        switch failure.kind {
        case .nameNotResolved:
            return (FailureReason(.unreachable(failure.kind), layer: .connection, "the host name did not resolve" + detail),
                    AppleError(code: AppleError.cannotFindHost, streamErrorCode: 8, streamErrorDomain: 12))
        case .connectionRefused:
            return (FailureReason(.unreachable(failure.kind), layer: .connection, "connection refused" + detail),
                    AppleError(code: AppleError.cannotConnectToHost, streamErrorCode: 61, streamErrorDomain: 1))
        case .networkUnreachable:
            return (FailureReason(.unreachable(failure.kind), layer: .connection, "network unreachable" + detail),
                    AppleError(code: AppleError.cannotConnectToHost, streamErrorCode: 51, streamErrorDomain: 1))
        case .connectTimeout, .handshakeTimeout:
            let what = failure.kind == .connectTimeout ? "connecting" : "during the handshake"
            let kind: FailureReason.Kind = failure.kind == .connectTimeout ? .unreachable(failure.kind) : .handshakeFailed(failure.kind)
            return (FailureReason(kind, layer: .connection, "timed out \(what)" + detail),
                    AppleError(code: AppleError.timedOut, streamErrorCode: -2102, streamErrorDomain: 4))
        case .notTLS:
            return (FailureReason(.unreachable(failure.kind), layer: .connection, "the server did not answer with TLS" + detail),
                    .ssl(SecureTransportCode.closedAbort))
        case .noSharedProtocol:
            let message = offer.minVersion == ruleSet.platformMinimumVersion && !policy.atsApplies
                ? "server accepts no protocol the platform speaks (\(range))\(alert)"
                : "server accepts no protocol in \(range)\(alert)"
            return (FailureReason(.handshakeFailed(failure.kind), layer: .handshake, message + detail),
                    .ssl(failure.alert.map(SecureTransportCode.forPeerAlert) ?? SecureTransportCode.peerProtocolVersion))
        case .noSharedCipher:
            return (FailureReason(.handshakeFailed(failure.kind), layer: .handshake,
                                  "server has no cipher suite in common with the \(offer.suites.count) offered (\(range))\(alert)" + detail),
                    .ssl(failure.alert.map(SecureTransportCode.forPeerAlert) ?? SecureTransportCode.peerHandshakeFailure))
        case .tlsAlert:
            return (FailureReason(.handshakeFailed(failure.kind), layer: .handshake, "server sent a fatal alert\(alert)" + detail),
                    .ssl(failure.alert.map(SecureTransportCode.forPeerAlert) ?? SecureTransportCode.fatalAlert))
        case .closedDuringHandshake, .resetDuringHandshake:
            // Network.framework turns a reset (and a close) before the handshake ends into
            // errSSLClosedNoNotify ("received ECONNRESET with incomplete TLS handshake").
            let what = failure.kind == .closedDuringHandshake ? "closed" : "reset"
            return (FailureReason(.handshakeFailed(failure.kind), layer: .handshake, "server \(what) the connection during the handshake" + detail),
                    .ssl(SecureTransportCode.closedNoNotify))
        case .clientRejected:
            return (FailureReason(.handshakeFailed(failure.kind), layer: .handshake, "the server's choice was outside the offer" + detail),
                    .ssl(SecureTransportCode.negotiation))
        case .other:
            return (FailureReason(.handshakeFailed(failure.kind), layer: .handshake, "handshake failed" + detail),
                    .ssl(SecureTransportCode.protocolError))
        }
    }

    // MARK: - Completed handshakes

    static func judge(_ observation: Observation, policy: EffectivePolicy, ruleSet: RuleSet,
                      violations: [CertificateRuleViolation]) -> [(FailureReason, AppleError)] {
        var findings: [(FailureReason, AppleError)] = []
        let host = policy.host
        let version = observation.protocolVersion
        let suite = observation.cipherSuite

        // The offer: a client never accepts a protocol or suite it did not offer.
        if version < policy.minimumVersion {
            let belowPlatform = version < ruleSet.platformMinimumVersion
            let message = belowPlatform
                ? "server's highest protocol is \(version), which the platform (\(ruleSet.id)) no longer speaks"
                : "server's highest protocol is \(version), below the minimum \(policy.minimumVersion)"
            findings.append((FailureReason(.protocolTooOld, layer: belowPlatform ? .handshake : .ats, message),
                             .ssl(SecureTransportCode.peerProtocolVersion)))
        }
        let allowed = policy.allowedSuites(ruleSet: ruleSet)
        if !allowed.contains(suite) {
            if policy.requiresForwardSecrecy && !suite.isForwardSecret && ruleSet.nonForwardSecretSuites.contains(suite) {
                findings.append((FailureReason(.notForwardSecret, layer: .ats, "server chose \(suite), not forward secret"),
                                 .ssl(SecureTransportCode.atsCipherSuiteViolation)))
            } else if ruleSet.platformSuites.contains(suite) {
                findings.append((FailureReason(.suiteNotAllowed, layer: .ats,
                                               "server chose \(suite), not an ATS cipher suite (rules \(ruleSet.id))"),
                                 .ssl(SecureTransportCode.atsCipherSuiteViolation)))
            } else {
                findings.append((FailureReason(.suiteNotAllowed, layer: .handshake,
                                               "server chose \(suite), which the platform (\(ruleSet.id)) does not offer"),
                                 .ssl(SecureTransportCode.peerHandshakeFailure)))
            }
        }

        // Default trust evaluation (2A): every configuration.
        for problem in observation.trust.problems {
            let codes = AppleTrustCodes.codes(for: problem.kind)
            var message = "certificate not trusted: \(UntrustedText.escape(problem.detail, limit: 600))"
            if let other = observation.trust.otherStore, other.trusts { message += " (\(UntrustedText.escape(other.detail, limit: 300)))" }
            findings.append((FailureReason(.trust(problem.kind), layer: .trust, message + " (\(codes))"),
                             .untrusted(codes.secureTransport, host: host, osStatus: codes.osStatus)))
        }
        // A rule set from before iOS 13 has none of Apple's certificate rules (the 398-day and CT
        // rules came later still), so it reads no violation.
        for violation in violations where ruleSet.appliesIOS13CertificateRules {
            let codes = AppleTrustCodes.codes(forRule: violation.rule)
            findings.append((FailureReason(.certificateRule(violation.rule), layer: .trust,
                                           UntrustedText.escape(violation.detail, limit: 400) + " (\(codes))"),
                             .untrusted(codes.secureTransport, host: host, osStatus: codes.osStatus)))
        }
        if let pins = policy.pins {
            // Apple matches pins against the chain it built (fetched intermediates, the store's root).
            let pinning = PinningPolicy.evaluate(chain: observation.trust.path ?? observation.chain, pins: pins)
            if !pinning.isSatisfied {
                findings.append((FailureReason(.pinMismatch, layer: .trust,
                                               "NSPinnedDomains for \(UntrustedText.escape(host, limit: 255)): \(pinning.reason)"),
                                 .untrusted(SecureTransportCode.certificateChainInvalid, host: host)))
            }
        }

        // ATS extended requirements (2B).
        if let leaf = observation.leaf {
            // Compared in whole bytes, as Apple's code does (SecCertificateIsAtLeastMinKeySize).
            if policy.checksLeafKeySize, let needed = minimumKeyBits(leaf.publicKey.algorithm),
               !KeySizeCounting.bytes.meets(bits: leaf.publicKey.bits, minimum: needed) {
                findings.append((FailureReason(.leafKeyTooSmall, layer: .ats,
                                               "leaf \(leaf.publicKey.algorithm.rawValue) key \(leaf.publicKey.bits) bits < \(needed)"),
                                 .ssl(SecureTransportCode.atsMinimumKeySizeViolation)))
            }
            if policy.checksLeafSignatureHash, !leaf.signatureHash.isSHA256OrStronger {
                let algorithm = UntrustedText.escape(leaf.signatureAlgorithm, limit: 80)
                findings.append((FailureReason(.leafSignatureHashWeak, layer: .ats,
                                               "leaf signed with \(leaf.signatureHash.rawValue.uppercased()) (\(algorithm)); ATS requires SHA-256 or stronger"),
                                 .ssl(SecureTransportCode.atsLeafCertificateHashViolation)))
            }
        }

        if let failure = observation.http?.failure {
            findings.append((FailureReason(.httpFailure, layer: .connection,
                                           "the HTTP request failed after the handshake: \(UntrustedText.escape(failure, limit: 200))"),
                             AppleError(code: AppleError.networkConnectionLost, streamErrorCode: -4, streamErrorDomain: 4)))
        }
        return findings
    }

    /// ATS minimum leaf key sizes: RSA 2048, ECC 256. Other algorithms are not size-checked.
    static func minimumKeyBits(_ algorithm: PublicKeyFacts.Algorithm) -> Int? {
        switch algorithm {
        case .rsa: 2048
        case .ec: 256
        default: nil
        }
    }
}
