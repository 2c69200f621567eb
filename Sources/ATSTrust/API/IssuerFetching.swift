import Synchronization
package import OpenSSLSupport
package import COpenSSL

/// Where a `ChainVerifier` finds an issuer the chain left out, by the caIssuers URL of the
/// certificate that names it (as Apple's trustd, SecCAIssuerRequest.m). The network one is
/// ATSProbe's `NetworkIssuerFetching`, which runs on the `ProbeRuntime` it is given; a test or an
/// offline tool passes a table. Implementations bound their own waits.
public protocol IssuerFetching: Sendable {
    /// The certificates `url` gives (DER), or why not, for a chain judged for `target` (the name
    /// or address the chain is judged for: an address policy may depend on it).
    func certificates(from url: String, target: String) async -> IssuerFetchResult
}

/// What one caIssuers URL gave.
public enum IssuerFetchResult: Sendable, Equatable {
    /// DER certificates (a certs-only PKCS#7 already unpacked).
    case certificates([[UInt8]])
    /// Why nothing usable came back, as a reason a report shows.
    case failure(String)
}

/// An `IssuerFetching` as the evaluator asks it (ATSTrust's `IssuerSource`), for one judgement:
/// remembers what was fetched, so the leaf's SCTs can be checked with a fetched issuer.
final class IssuerFetchingSource: IssuerSource {
    let fetching: any IssuerFetching
    let target: String
    private let fetched = Mutex<[[UInt8]]>([])

    init(fetching: any IssuerFetching, target: String) {
        self.fetching = fetching
        self.target = target
    }

    func certificates(from url: String) async -> CAIssuers.Outcome {
        switch await fetching.certificates(from: url, target: target) {
        case .certificates(let ders):
            let bounded = Array(ders.prefix(ChainFile.certificateLimit))
            fetched.withLock { $0 += bounded }
            return .certificates(bounded)
        case .failure(let reason):
            return .failure(reason)
        }
    }

    /// A fetched certificate that issued `cert`; never fetches.
    func issuer(of cert: X509Certificate) -> X509Certificate? {
        defer { OpenSSLErrors.clear() }
        for der in fetched.withLock({ $0 }) {
            if let parent = try? X509Certificate(der: der), parent.isIssuer(of: cert) { return parent }
        }
        return nil
    }
}
