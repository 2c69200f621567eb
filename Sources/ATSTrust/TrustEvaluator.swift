#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
package import COpenSSL
package import CATSProbeShims
package import OpenSSLSupport
import TLSFacts

/// Verifies a served chain against the anchors at a given time, recording every problem
/// instead of stopping at the first.
package struct TrustEvaluator: Sendable {
    package let store: TrustStore
    package let date: Date

    /// Certificates read from a chain at most (served, built or read from a file): far above
    /// any real chain, so the chain shown and judged is the chain as given.
    package static let chainLimit = 1024

    /// One error the verifier reported, and at which depth of the chain it built.
    package struct VerifyError {
        let code: Int32
        let depth: Int32
    }

    /// Fetches missing issuers by caIssuers URL (nil: --no-aia); the source bounds each fetch.
    package var fetcher: (any IssuerSource)? = nil

    package init(store: TrustStore, date: Date, fetcher: (any IssuerSource)? = nil) {
        self.store = store
        self.date = date
        self.fetcher = fetcher
    }

    /// `served` is the peer's chain, leaf first, each certificate with the facts the handshake
    /// read (not read again here). `name` is the DNS name or IP literal to match.
    package func evaluate(served: [ServedCertificate], name: String?) async -> TrustEvaluation {
        var problems: [TrustProblem] = []
        guard let leaf = served.first?.certificate else {
            return TrustEvaluation(problems: [TrustProblem(kind: .invalidChain, detail: "no certificate served")],
                                   anchor: nil, evaluatedAt: date, store: store.storeName)
        }
        var untrusted = served.dropFirst().map(\.certificate)
        var (errors, builtChain) = verify(leaf: leaf, untrusted: untrusted, in: store.store)
        var fetches: [FetchedIssuer] = []
        // Apple's path builder asks the network (caIssuers) for a parent no other source has
        // (SecTrustServer.c, kSecCAIssuerSource): the certificate that lacks an issuer names URLs.
        if let fetcher {
            var hops = 0
            while hops < CAIssuers.hopLimit, let depth = missingIssuerDepth(errors), depth < builtChain.count {
                let child = builtChain[depth]
                let found = await fetchIssuers(of: child, with: fetcher, log: &fetches)
                guard !found.isEmpty else { break }
                untrusted += found
                (errors, builtChain) = verify(leaf: leaf, untrusted: untrusted, in: store.store)
                hops += 1
            }
        }

        // Apple's path builder keeps looking when a path breaks a name constraint, or when a
        // served intermediate has a twin (same subject) that leads elsewhere (SecTrustServer.c
        // SecPathBuilderStep/SecPathBuilderReportResult: candidate paths are scored and the
        // best kept; x509-limbo nc-forbids-alternate-chain-ica, nc-forbids-same-chain-ica).
        // OpenSSL builds one path: another is tried by leaving one served certificate out.
        if Self.worthAnotherPath(errors, served: untrusted) {
            for left in untrusted.indices.prefix(16) {
                var others = untrusted
                others.remove(at: left)
                let (alternativeErrors, alternativeChain) = verify(leaf: leaf, untrusted: others, in: store.store)
                if !alternativeErrors.contains(where: { Self.untrustedCodes.contains($0.code) || Self.nameConstraintCodes.contains($0.code) }) {
                    (errors, builtChain, untrusted) = (alternativeErrors, alternativeChain, others)
                    break
                }
            }
        }
        // The path ends at the first certificate an anchor source holds (SecTrustServer.c
        // SecPathBuilderIsAnchor): a leaf the app or the user gave as an anchor ends it, even
        // when the server also sends a root above it (which OpenSSL's partial chain keeps).
        if !store.appAnchorFingerprints.isEmpty || !store.userAnchorFingerprints.isEmpty, builtChain.count > 1 {
            let anchors = store.appAnchorFingerprints.isEmpty ? store.userAnchorFingerprints : store.appAnchorFingerprints
            if let first = builtChain.dropLast().firstIndex(where: { certificate in
                let fingerprint = served.first { $0.certificate.isSameObject(as: certificate) }?.facts.sha256Fingerprint
                    ?? CertificateReader.fingerprint(of: certificate)
                return anchors.contains(fingerprint)
            }) {
                builtChain = Array(builtChain.prefix(first + 1))
                errors.removeAll { Int($0.depth) > first || Self.untrustedCodes.contains($0.code) }
            }
        }

        let facts = served.map(\.facts)
        // The verifier builds its chain from the very X509 objects it was given, so a served
        // certificate's facts are found by identity; only an anchor from a store is read here.
        func servedFacts(_ certificate: X509Certificate) -> CertificateFacts? {
            served.first { $0.certificate.isSameObject(as: certificate) }?.facts
        }
        func index(of depth: Int32) -> Int? {
            guard depth >= 0, Int(depth) < builtChain.count else { return nil }
            let certificate = builtChain[Int(depth)]
            let fingerprint = servedFacts(certificate)?.sha256Fingerprint ?? CertificateReader.fingerprint(of: certificate)
            return facts.firstIndex { $0.sha256Fingerprint == fingerprint }  // nil: an anchor the server did not send
        }
        func label(_ depth: Int32) -> String {
            guard depth >= 0, Int(depth) < builtChain.count else { return "certificate" }
            return "'\(builtChain[Int(depth)].subjectName(limit: CertificateReader.nameLimit))'"
        }

        var chainUntrusted = false
        for error in errors {
            let text = String(cString: X509_verify_cert_error_string(Int(error.code)))
            let at = index(of: error.depth)
            switch error.code {
            case X509_V_ERR_CERT_HAS_EXPIRED:
                // Apple's validity is inclusive: valid while notBefore <= t <= notAfter
                // (SecCertificate.c SecCertificateIsValid); OpenSSL's X509_cmp_time counts
                // t == notAfter as expired. At that very second Apple still trusts it.
                if error.depth >= 0, Int(error.depth) < builtChain.count {
                    let certificate = builtChain[Int(error.depth)]
                    let notAfter = (servedFacts(certificate) ?? CertificateReader.facts(of: certificate)).notAfter
                    if notAfter >= date { continue }
                }
                problems.append(TrustProblem(kind: .expired, certificateIndex: at, detail: "\(label(error.depth)) has expired"))
            case X509_V_ERR_CERT_NOT_YET_VALID:
                problems.append(TrustProblem(kind: .notYetValid, certificateIndex: at, detail: "\(label(error.depth)) is not yet valid"))
            case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
                chainUntrusted = true
                problems.append(TrustProblem(kind: .selfSigned, certificateIndex: 0, detail: "\(label(0)) is self-signed and not an anchor"))
            case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
                chainUntrusted = true
                problems.append(TrustProblem(kind: .untrustedRoot, certificateIndex: at, detail: "\(label(error.depth)): \(text)"))
            case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
                chainUntrusted = true
                let issuer = error.depth >= 0 && Int(error.depth) < builtChain.count
                    ? builtChain[Int(error.depth)].issuerName(limit: CertificateReader.nameLimit) : "?"
                var problem = missingIssuer(index: at, issuer: issuer, served: served, facts: facts, label: label(error.depth))
                problem.detail += fetchSummary(fetches, fetching: fetcher != nil)
                problems.append(problem)
            case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
                continue  // follows from the missing issuer, already reported
            default:
                problems.append(TrustProblem(kind: .invalidChain, certificateIndex: at, detail: "\(label(error.depth)): \(text)"))
            }
        }
        // What trustd checks on every path and OpenSSL does not (AppleChainChecks), once a
        // path reached an anchor.
        if !chainUntrusted {
            for (depth, detail) in AppleChainChecks.problems(path: builtChain) {
                problems.append(TrustProblem(kind: .invalidChain, certificateIndex: index(of: Int32(depth)), detail: "\(label(Int32(depth))): \(detail)"))
            }
            // Apple's system pinning list, for the hosts it names (AppleSystemPinning).
            if let name, !Target.isIPAddress(name), let top = builtChain.last,
               let detail = AppleSystemPinning.problem(host: name, path: builtChain,
                                                       anchorFingerprint: servedFacts(top)?.sha256Fingerprint ?? CertificateReader.fingerprint(of: top)) {
                problems.append(TrustProblem(kind: .invalidChain, certificateIndex: nil, detail: detail))
            }
        }
        if let name, !matches(leaf: leaf, name: name) {
            problems.append(TrustProblem(kind: .nameMismatch, certificateIndex: 0,
                                         detail: "certificate is not valid for '\(name)'; \(coveredNames(leaf))"))
        }

        var anchor: AnchorSource?
        if !chainUntrusted, let top = builtChain.last {
            anchor = store.anchorSource(fingerprint: servedFacts(top)?.sha256Fingerprint ?? CertificateReader.fingerprint(of: top))
        }
        let path = anchor == nil ? nil : builtChain.map { servedFacts($0) ?? CertificateReader.facts(of: $0) }
        return TrustEvaluation(problems: deduplicated(problems), anchor: anchor, evaluatedAt: date, store: store.storeName,
                               path: path, fetchedIssuers: fetches.isEmpty ? nil : fetches,
                               otherStore: compareStores(leaf: leaf, untrusted: untrusted, anchor: anchor, untrustedHere: chainUntrusted),
                               pinningPolicy: name.flatMap { Target.isIPAddress($0) ? nil : AppleSystemPinning.entry(for: $0)?.policyName })
    }

    /// "it covers DNS:a.example, IP:192.0.2.1" (at most 20) and how many more it holds (every
    /// one, not the facts' `listLimit`), or that it names none.
    private func coveredNames(_ leaf: X509Certificate) -> String {
        let all = CertificateReader.subjectAltNames(of: leaf, limit: .max)
        let count = all.dns.count + all.ip.count
        guard count > 0 else { return "it has no subjectAltName DNS or IP entry (the CommonName is never used)" }
        let shown = (all.dns.prefix(20).map { "DNS:" + $0 } + all.ip.prefix(20).map { "IP:" + $0 }).prefix(20).joined(separator: ", ")
        return "it covers " + shown + (count > 20 ? " and \(count - 20) more" : "")
    }

    /// The depth of the certificate whose issuer no source had, when that is what stopped the chain.
    private func missingIssuerDepth(_ errors: [VerifyError]) -> Int? {
        errors.first { $0.code == X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY }.map { Int($0.depth) }
    }

    /// Fetches `child`'s caIssuers URLs in order until one gives a certificate that issued it.
    /// Every URL tried is logged.
    private func fetchIssuers(of child: X509Certificate, with fetcher: any IssuerSource, log: inout [FetchedIssuer]) async -> [X509Certificate] {
        let (urls, total) = CAIssuers.caIssuerURLs(of: child)
        let subject = child.subjectName(limit: CertificateReader.nameLimit)
        // The true count, not the number read (issue 24: 1,000 URLs were reported as "64").
        guard total < CAIssuers.urlThreshold else {
            log.append(FetchedIssuer(url: urls.first ?? "", forSubject: subject, certificates: [],
                                     failure: "not fetched: \(total) caIssuers URLs (Apple fetches none from \(CAIssuers.urlThreshold) on)"))
            return []
        }
        for url in urls {
            switch await fetcher.certificates(from: url) {
            case .failure(let reason):
                log.append(FetchedIssuer(url: url, forSubject: subject, certificates: [], failure: reason))
            case .certificates(let ders):
                let parents = ders.compactMap { der -> X509Certificate? in
                    guard let cert = try? X509Certificate(der: der), cert.isIssuer(of: child) else { return nil }
                    return cert
                }
                OpenSSLErrors.clear()
                log.append(FetchedIssuer(url: url, forSubject: subject, certificates: parents.map { CertificateReader.facts(of: $0) },
                                         failure: parents.isEmpty ? "none of the \(ders.count) certificate(s) it gave issued '\(subject)'" : nil))
                if !parents.isEmpty { return parents }
            }
        }
        return []
    }

    /// Why fetching did not help, for the missing-issuer problem.
    private func fetchSummary(_ fetches: [FetchedIssuer], fetching: Bool) -> String {
        guard fetching else { return "; caIssuers fetching is off" }
        let failures = fetches.filter { $0.failure != nil }
        guard !failures.isEmpty else { return fetches.isEmpty ? "; no caIssuers URL to fetch it from" : "" }
        return "; caIssuers fetch failed: " + failures.prefix(3).map { "\($0.url): \($0.failure ?? "")" }.joined(separator: "; ")
    }

    /// Judges the same chain against the other system store, and says when the two disagree:
    /// the chain's root is in one and not the other.
    private func compareStores(leaf: X509Certificate, untrusted: [X509Certificate], anchor: AnchorSource?,
                               untrustedHere: Bool) -> StoreComparison? {
        guard let other = store.otherStore, let otherName = store.otherStoreName, let thisName = store.storeName,
              anchor == .system || untrustedHere else { return nil }
        let (errors, _) = verify(leaf: leaf, untrusted: untrusted, in: other)
        let trustedThere = !errors.contains { TrustEvaluator.untrustedCodes.contains($0.code) }
        if anchor == .system && !trustedThere {
            return StoreComparison(store: otherName, trusts: false, detail: "trusted by \(thisName), not by \(otherName)")
        }
        if untrustedHere && trustedThere {
            return StoreComparison(store: otherName, trusts: true, detail: "trusted by \(otherName), not by \(thisName)")
        }
        return nil
    }

    /// The verify errors that mean no anchor was reached.
    package static let untrustedCodes: Set<Int32> = [X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN,
                                             X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY]

    /// The verifier stopped at a certificate whose issuer no store holds. When the server sent
    /// only a leaf (not a CA), the usual cause is a missing intermediate; when it sent CA
    /// certificates too, the chain leads to a root we do not trust.
    private func missingIssuer(index: Int?, issuer: String, served: [ServedCertificate], facts: [CertificateFacts],
                               label: String) -> TrustProblem {
        let stoppedAtLeaf = index == 0 && served.count == 1 && !(facts.first?.isCA ?? false)
        if stoppedAtLeaf {
            return TrustProblem(kind: .incompleteChain, certificateIndex: 0,
                                detail: "only the leaf was served and its issuer '\(issuer)' is not an anchor (missing intermediate?)")
        }
        return TrustProblem(kind: .untrustedRoot, certificateIndex: index,
                            detail: "\(label): issuer '\(issuer)' is not a trusted anchor")
    }

    private func deduplicated(_ problems: [TrustProblem]) -> [TrustProblem] {
        var seen = Set<String>()
        return problems.filter { seen.insert("\($0.kind.rawValue)#\($0.certificateIndex ?? -1)").inserted }
    }

    /// Apple's SecPolicyCheckCertSSLHostname (SecPolicyLeafCallbacks.c): the CommonName is never
    /// consulted, even in a leaf without subjectAltName; an IP address matches only an iPAddress
    /// entry (SecCertificate.c SecCertificateCopyDNSNamesFromSAN drops DNS entries that look like
    /// addresses); one trailing dot of the host is removed (SecDNSMatch), while a SAN with a
    /// trailing dot has one label more and never matches.
    /// Every name the leaf holds is matched, not the `listLimit` the facts keep for display (a
    /// host named 100,000th was a mismatch: issue 40).
    private func matches(leaf: X509Certificate, name: String) -> Bool {
        // No partial wildcards ("w*.example.com" matches nothing), as SecPolicyLeafCallbacks.c.
        let flags = UInt32(X509_CHECK_FLAG_NEVER_CHECK_SUBJECT | X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS)
        if Target.isIPAddress(name) { return leaf.matchesIPAddress(name, flags: flags) }
        let host = name.hasSuffix(".") ? String(name.dropLast()) : name
        // An empty label (".test.apple.com", "a..b") matches no presented name (SecDNSMatch
        // compares label by label; a leading dot makes an empty first label).
        guard !host.isEmpty, !host.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty) else { return false }
        guard leaf.matchesHost(host, flags: flags) else { return false }
        return matchesWithoutPublicSuffixWildcard(dnsNames: CertificateReader.dnsNames(of: leaf), host: host)
    }

    /// OpenSSL matched `host`; Apple also refuses a wildcard whose remainder is a top-level
    /// domain (SecPolicyLeafCallbacks.c SecDNSMatch -> SecDNSIsTLD: `*.co.uk`). True when an
    /// exact SAN entry matches, or a wildcard one over a name that is not a public suffix.
    private func matchesWithoutPublicSuffixWildcard(dnsNames: [String], host: String) -> Bool {
        let lowered = host.lowercased()
        if dnsNames.contains(where: { $0.lowercased() == lowered }) { return true }
        let names = dnsNames.map { $0.lowercased() }
        guard let dot = lowered.firstIndex(of: ".") else { return false }
        let parent = String(lowered[lowered.index(after: dot)...])
        return names.contains("*." + parent) && !PublicSuffixList.isPublicSuffix(parent)
    }

    /// OpenSSL's name-constraint verdicts.
    static let nameConstraintCodes: Set<Int32> = [X509_V_ERR_PERMITTED_VIOLATION, X509_V_ERR_EXCLUDED_VIOLATION,
                                                 X509_V_ERR_SUBTREE_MINMAX, X509_V_ERR_UNSUPPORTED_CONSTRAINT_TYPE,
                                                 X509_V_ERR_UNSUPPORTED_CONSTRAINT_SYNTAX, X509_V_ERR_UNSUPPORTED_NAME_SYNTAX]

    /// Whether another path may exist: the first broke a name constraint, or did not reach an
    /// anchor while two served certificates share a subject (the same CA under two issuers).
    private static func worthAnotherPath(_ errors: [VerifyError], served: [X509Certificate]) -> Bool {
        guard served.count > 1 else { return false }
        if errors.contains(where: { nameConstraintCodes.contains($0.code) }) { return true }
        guard errors.contains(where: { untrustedCodes.contains($0.code) }) else { return false }
        for (index, certificate) in served.enumerated() {
            for other in served[(index + 1)...] where certificate.hasSameSubject(as: other) {
                return true
            }
        }
        return false
    }

    /// Runs X509_verify_cert with a callback that records each error and carries on.
    /// Returns the errors and the chain it built.
    private func verify(leaf: X509Certificate, untrusted: [X509Certificate], in anchors: X509Store) -> ([VerifyError], [X509Certificate]) {
        OpenSSLErrors.clear()
        // An app may set any certificate as an anchor, an intermediate or the leaf itself
        // (SecTrustSetAnchorCertificates: the path ends at the first certificate an anchor
        // source contains, SecPathBuilderIsAnchor), and the user's trust settings make any
        // certificate an anchor (SecPVCIsAnchorPerConstraints: a certificate that is not
        // self-signed is one "as root"); OpenSSL ends a chain at a certificate that is not
        // self-signed only with PARTIAL_CHAIN. The system store holds roots only.
        let partialChain = !store.appAnchorFingerprints.isEmpty || !store.userAnchorFingerprints.isEmpty
        // The whole built chain (bounded as the served one is): cutting it at 16 lost the
        // anchor of a longer chain, which then read as a system root.
        guard let verification = anchors.verify(leaf, untrusted: untrusted, at: Int(date.timeIntervalSince1970),
                                                partialChain: partialChain, errorLimit: 64,
                                                chainLimit: TrustEvaluator.chainLimit) else { return ([], []) }
        return (verification.errors.map { VerifyError(code: $0.code, depth: $0.depth) }, verification.chain)
    }
}
