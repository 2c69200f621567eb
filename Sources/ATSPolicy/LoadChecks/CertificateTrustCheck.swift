import TextSupport
import TLSFacts

/// Default trust evaluation (2A), under every configuration: each problem the chain check found
/// (expired, name mismatch, untrusted root, incomplete chain, ...), with the codes Apple reports.
package struct CertificateTrustCheck: LoadCheck {
    package let id: LoadCheckID = "certificate-trust"
    package init() {}

    package func failures(_ context: LoadCheckContext) -> [FailureReason] {
        let trust = context.observation.trust
        return trust.problems.map { problem in
            let codes = AppleErrorCodes.trustCodes(for: problem.kind)
            var message = "certificate not trusted: \(UntrustedText.escape(problem.detail, limit: 600))"
            if let other = trust.otherStore, other.trusts { message += " (\(UntrustedText.escape(other.detail, limit: 300)))" }
            return FailureReason(.trust(problem.kind), layer: .trust, message + " (\(codes))")
        }
    }
}
