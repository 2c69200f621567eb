import Foundation
import Testing
import ATSTestServers
import TestSupport

/// A host on Apple's system pinning list whose chain ends at a public (system) root and carries
/// no SCTs. trustd replaces the host's SSL server policy by the list's policy, renamed to the
/// list's name (SecTrustServer.c SecPathBuilderAddPinningPolicies: SecPolicySetName(newPolicy,
/// dbPolicyName)), and the system-root CT check runs only under the SSL server policy by name
/// (SecPolicyServer.c SecPolicyCheckSystemTrustedCTRequired: "Not a pinning policy"). So the
/// chain fails the list's rules (the test root is none of Apple's) and is not asked for CT; the
/// same chain for a name of the same domain that the list does not pin is asked for CT. Through
/// `probe` (a loopback server reached with --connect-to) and `cert` (the same chain offline):
/// one answer.
@Suite("Apple's pinned hosts and CT")
struct PinnedHostCTTests {
    /// APN's entry: suffix push.apple.com, label ^init$.
    static let pinned = "init.push.apple.com"
    /// The same suffix, a label none of the list's patterns matches.
    static let unpinned = "www.push.apple.com"

    /// What one run says: the rules that failed and the CT verdict with its reason.
    struct Verdict {
        var status: Int32
        var rules: [String]
        var ctVerdict: String?
        var ctReason: String
        var pinningPolicy: String?
    }

    static func probe(_ host: String, port: Int, root: String) async throws -> Verdict {
        let result = try await TrustSupport.run(["probe", "--json", "--trust-store", "system", "--at", "2025-03-10",
                                                 "--connect-to", "\(host):\(port):127.0.0.1:\(port)", "https://\(host):\(port)/"],
                                                environment: ["SSL_CERT_FILE": root])
        let document = try #require((try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [String: Any],
                                    "\(result.stdout)\(result.stderr)")
        let trust = (document["observation"] as? [String: Any])?["trust"] as? [String: Any]
        let problems = (trust?["problems"] as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String }.map { "trust." + $0 }
        let violations = ((document["appleRules"] as? [String: Any])?["violations"] as? [[String: Any]] ?? []).compactMap { $0["rule"] as? String }
        let ct = document["certificateTransparency"] as? [String: Any]
        return Verdict(status: result.status, rules: problems + violations, ctVerdict: ct?["verdict"] as? String,
                       ctReason: ct?["reason"] as? String ?? "", pinningPolicy: trust?["pinningPolicy"] as? String)
    }

    static func cert(_ chain: String, host: String, root: String) async throws -> [String] {
        let result = try await TrustSupport.run(["cert", chain, "--host", host, "--trust-store", "system", "--at", "2025-03-10", "--json"],
                                                environment: ["SSL_CERT_FILE": root])
        let document = try #require((try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [String: Any],
                                    "\(result.stdout)\(result.stderr)")
        let judgement = document["judgement"] as? [String: Any] ?? document
        return (judgement["failures"] as? [[String: Any]] ?? []).compactMap { $0["rule"] as? String }
    }

    @Test func aPinnedHostsPublicChainIsNotAskedForCT() async throws {
        let pki = try TestPKI()
        let root = try pki.writeRootPEM()
        let identity = try pki.issue(CertificateSpec(commonName: Self.pinned, dnsNames: [Self.pinned, Self.unpinned],
                                                     notBefore: TrustEndToEndTests.issued,
                                                     notAfter: TrustEndToEndTests.issued.addingTimeInterval(90 * 86_400 - 1)))
        let (pinned, unpinned) = try await TrustSupport.withServer(TLSServerConfiguration(identity: identity)) { port in
            (try await Self.probe(Self.pinned, port: port, root: root), try await Self.probe(Self.unpinned, port: port, root: root))
        }
        // Pinned: the list's rules fail the chain, CT is not asked.
        #expect(pinned.status == 1)
        #expect(pinned.rules == ["trust.invalidChain"], "\(pinned.rules)")
        #expect(pinned.pinningPolicy == "APN")
        #expect(pinned.ctVerdict == "notRequired", "\(pinned.ctReason)")
        #expect(pinned.ctReason.contains("Apple's system pinning list names the host (policy APN)"), "\(pinned.ctReason)")
        // Not pinned: the public root asks for CT, which the chain lacks.
        #expect(unpinned.status == 1)
        #expect(unpinned.rules == ["certificate-transparency"], "\(unpinned.rules)")
        #expect(unpinned.pinningPolicy == nil)
        #expect(unpinned.ctVerdict == "nonCompliant", "\(unpinned.ctReason)")

        // The same chain offline: the same rules.
        let files = try TemporaryDirectory(prefix: "atsprobe-pinned")
        defer { files.remove() }
        let chain = try files.write("chain.pem", identity.fullChainPEM)
        #expect(try await Self.cert(chain, host: Self.pinned, root: root) == ["trust.invalid-chain"])
        #expect(try await Self.cert(chain, host: Self.unpinned, root: root) == ["certificate-transparency"])
    }
}
