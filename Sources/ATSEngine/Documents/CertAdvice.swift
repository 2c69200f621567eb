import ATSAdvice
import ATSTrust
import TextSupport
import TLSFacts

/// What `cert` says a server should change, in the same words and server lines as `diagnose`
/// (ATSAdvice's `ServerFix`: the nginx, Apache and HAProxy directives), and whether the file
/// is in the order a server sends a chain (the leaf first).
package enum CertAdvice {
    /// The fixes for a judged chain: reissue the certificate (a rule it breaks), serve the full
    /// chain leaf first (an incomplete chain, or the bundle's order), a publicly trusted CA (an
    /// untrusted or self-signed root); the same three `HostAdvice` gives a handshake's failures.
    package static func fixes(_ judgement: ChainJudgement, host: String, order: String?) -> [ServerFix] {
        var certificate: [String] = []
        var chain = order
        var root: String?
        for failure in judgement.failures {
            switch failure.rule {
            case "trust.incomplete-chain", "trust.invalid-chain": chain = chain ?? failure.rule
            case "trust.untrusted-root", "trust.self-signed": root = root ?? failure.rule
            default: certificate.append(failure.rule)
            }
        }
        var fixes: [ServerFix] = []
        if !certificate.isEmpty {
            fixes.append(.reissueCertificate(host: host, problems: certificate, userInstalledRoot: judgement.anchorKind == .userTrustedRoot))
        }
        if let chain { fixes.append(.serveFullChain(problem: chain)) }
        if let root { fixes.append(.publiclyTrustedCertificate(problem: root)) }
        return fixes
    }

    /// A bundle whose first certificate is a CA while a later one is not: the leaf is not first.
    /// A server sends the file's order, and an Apple device takes the first certificate as the
    /// server's (SecTrustCreateWithCertificates: the first is the one evaluated), so the leaf
    /// would be judged as an extra certificate, if at all. nil when the order is right.
    package static func orderProblem(_ given: [CertificateFacts]) -> String? {
        guard given.count > 1, given[0].isCA, let leaf = given.firstIndex(where: { !$0.isCA }) else { return nil }
        return "the bundle is not leaf first: certificate 0 ('\(UntrustedText.escape(given[0].subject, limit: 200))') is a CA, "
            + "certificate \(leaf) ('\(UntrustedText.escape(given[leaf].subject, limit: 200))') is the leaf; "
            + "a server sends the file's order and a client judges the first certificate as the server's"
    }
}
