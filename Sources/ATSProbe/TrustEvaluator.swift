#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
internal import COpenSSL
internal import CATSProbeShims
import TLSFacts

/// Verifies a served chain against the anchors at a given time, recording every problem
/// instead of stopping at the first.
struct TrustEvaluator {
    let store: TrustStore
    let date: Date

    /// One error the verifier reported, and at which depth of the chain it built.
    struct VerifyError {
        let code: Int32
        let depth: Int32
    }

    /// Collects verify errors from the C callback; reached through the store context's app data.
    final class ErrorLog {
        var errors: [VerifyError] = []
    }

    /// `served` is the peer's chain, leaf first (borrowed). `name` is the DNS name or IP literal to match.
    func evaluate(served: [OpaquePointer], name: String?) -> TrustEvaluation {
        var problems: [TrustProblem] = []
        guard let leaf = served.first else {
            return TrustEvaluation(problems: [TrustProblem(kind: .invalidChain, detail: "no certificate served")],
                                   anchor: nil, evaluatedAt: date)
        }
        let (errors, builtChain) = verify(leaf: leaf, untrusted: Array(served.dropFirst()))
        defer { builtChain.forEach { X509_free($0) } }

        let facts = served.map { CertificateReader.facts(of: $0) }
        func index(of depth: Int32) -> Int? {
            guard depth >= 0, Int(depth) < builtChain.count else { return nil }
            let fingerprint = CertificateReader.fingerprint(of: builtChain[Int(depth)])
            return facts.firstIndex { $0.sha256Fingerprint == fingerprint }  // nil: an anchor the server did not send
        }
        func label(_ depth: Int32) -> String {
            guard depth >= 0, Int(depth) < builtChain.count else { return "certificate" }
            return "'\(CertificateReader.name(X509_get_subject_name(builtChain[Int(depth)])))'"
        }

        var chainUntrusted = false
        for error in errors {
            let text = String(cString: X509_verify_cert_error_string(Int(error.code)))
            let at = index(of: error.depth)
            switch error.code {
            case X509_V_ERR_CERT_HAS_EXPIRED:
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
                    ? CertificateReader.name(X509_get_issuer_name(builtChain[Int(error.depth)])) : "?"
                problems.append(missingIssuer(index: at, issuer: issuer, served: served, facts: facts, label: label(error.depth)))
            case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
                continue  // follows from the missing issuer, already reported
            default:
                problems.append(TrustProblem(kind: .invalidChain, certificateIndex: at, detail: "\(label(error.depth)): \(text)"))
            }
        }
        if let name, !matches(leaf: leaf, name: name) {
            problems.append(TrustProblem(kind: .nameMismatch, certificateIndex: 0,
                                         detail: "certificate is not valid for '\(name)'"))
        }

        var anchor: AnchorSource?
        if !chainUntrusted, let top = builtChain.last {
            anchor = store.userAnchorFingerprints.contains(CertificateReader.fingerprint(of: top)) ? .user : .system
        }
        return TrustEvaluation(problems: deduplicated(problems), anchor: anchor, evaluatedAt: date)
    }

    /// The verifier stopped at a certificate whose issuer no store holds. When the server sent
    /// only a leaf (not a CA), the usual cause is a missing intermediate; when it sent CA
    /// certificates too, the chain leads to a root we do not trust.
    private func missingIssuer(index: Int?, issuer: String, served: [OpaquePointer], facts: [CertificateFacts],
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

    /// CommonName is never consulted, as Apple's clients do today.
    private func matches(leaf: OpaquePointer, name: String) -> Bool {
        let flags = UInt32(X509_CHECK_FLAG_NEVER_CHECK_SUBJECT)
        if Target.isIPAddress(name) { return X509_check_ip_asc(leaf, name, flags) == 1 }
        return X509_check_host(leaf, name, name.utf8.count, flags, nil) == 1
    }

    /// Runs X509_verify_cert with a callback that records each error and carries on.
    /// Returns the errors and the chain it built (owned references, freed by the caller).
    private func verify(leaf: OpaquePointer, untrusted: [OpaquePointer]) -> ([VerifyError], [OpaquePointer]) {
        OpenSSLErrors.clear()
        guard let context = X509_STORE_CTX_new(), let stack = CATSProbeShims_sk_X509_new_null() else { return ([], []) }
        defer {
            X509_STORE_CTX_free(context)
            CATSProbeShims_sk_X509_free(stack)
        }
        for cert in untrusted { _ = CATSProbeShims_sk_X509_push(stack, cert) }
        guard X509_STORE_CTX_init(context, store.store, leaf, stack) == 1 else { return ([], []) }
        let parameters = X509_STORE_CTX_get0_param(context)
        X509_VERIFY_PARAM_set_time(parameters, time_t(date.timeIntervalSince1970))
        _ = X509_VERIFY_PARAM_clear_flags(parameters, UInt(X509_V_FLAG_X509_STRICT))

        let log = ErrorLog()
        let unmanaged = Unmanaged.passRetained(log)
        defer { unmanaged.release() }
        _ = CATSProbeShims_X509_STORE_CTX_set_app_data(context, unmanaged.toOpaque())
        X509_STORE_CTX_set_verify_cb(context) { ok, context in
            guard ok == 0, let context, let raw = CATSProbeShims_X509_STORE_CTX_get_app_data(context) else { return ok }
            let log = Unmanaged<ErrorLog>.fromOpaque(raw).takeUnretainedValue()
            if log.errors.count < 64 {
                log.errors.append(VerifyError(code: X509_STORE_CTX_get_error(context), depth: X509_STORE_CTX_get_error_depth(context)))
            }
            return 1  // keep going: every problem is reported
        }
        _ = X509_verify_cert(context)
        OpenSSLErrors.clear()

        var chain: [OpaquePointer] = []
        if let built = X509_STORE_CTX_get1_chain(context) {
            // The whole built chain (bounded as the served one is): cutting it at 16 lost the
            // anchor of a longer chain, which then read as a system root.
            for index in 0..<min(CATSProbeShims_sk_X509_num(built), Int32(Handshake.chainLimit)) {
                if let cert = CATSProbeShims_sk_X509_value(built, index), X509_up_ref(cert) == 1 { chain.append(cert) }
            }
            CATSProbeShims_sk_X509_pop_free(built)
        }
        return (log.errors, chain)
    }
}
