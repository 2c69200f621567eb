import Foundation
import Testing
import ATSPolicy
import ATSTrust
import OpenSSLSupport
import TestSupport
import TLSFacts

/// x509-limbo's SERVER cases (../shared/data/limbo/limbo-server.jsonl.gz, read there, never
/// copied) through atsprobe's evaluator, the `cert` path: the case's trusted certificates are
/// anchors the relying party sets itself (`--app-anchor`), the peer's chain as served, the
/// peer name, the validation time (now when the case gives none). Every case is well-formed:
/// each must be answered, trusted or not, within its bound. Where atsprobe's answer differs from
/// limbo's expectation the case is in `differences`, with whose rule decides and why
/// (docs/trust.md, "x509-limbo"); the test fails when a difference appears or goes away.
@Suite struct LimboServerTests {
    static let file = AppleTrustDataTests.sharedData.appendingPathComponent("limbo/limbo-server.jsonl.gz")

    struct Case: Decodable {
        var id: String
        var chain_pem: String
        var anchors_pem: String
        var host: String?
        var validation_time: String?
        var expected: String
    }

    /// limbo id -> why atsprobe answers otherwise than limbo: "Apple decides, trusts/refuses"
    /// (Apple's code answers as atsprobe does, cited), or "unknowable" (Apple's answer is in
    /// closed code; why). docs/trust.md, "x509-limbo", holds the same table.
    static let differences: [String: String] = [
        "crl::crlnumber-critical": "Apple decides, trusts: trustd takes no CRL from the caller (SecTrustServer.c SecTrustServerEvaluate: certificates, anchors, OCSP responses, SCTs, no CRL), and atsprobe reads none",
        "crl::crlnumber-missing": "Apple decides, trusts: trustd takes no CRL from the caller (SecTrustServer.c SecTrustServerEvaluate: certificates, anchors, OCSP responses, SCTs, no CRL), and atsprobe reads none",
        "crl::issuer-missing-crlsign": "Apple decides, trusts: trustd takes no CRL from the caller (SecTrustServer.c SecTrustServerEvaluate: certificates, anchors, OCSP responses, SCTs, no CRL), and atsprobe reads none",
        "crl::revoked-certificate-with-crl": "Apple decides, trusts: trustd takes no CRL from the caller (SecTrustServer.c SecTrustServerEvaluate: certificates, anchors, OCSP responses, SCTs, no CRL), and atsprobe reads none",
        "cve::cve-2025-61727": "Apple decides, trusts: SecDNSNameConstraintsMatch (nameconstraints.c) compares the SAN *.example.com with the excluded bar.example.com as strings, suffix by suffix: it is not within it, so nothing is excluded, and the permitted example.com covers it",
        "online::akamai.com": "Apple decides, refuses at limbo's validation_time: the leaf's SCTs are dated after it (online::apple.com: SCTs 18:17:17, validation 18:07:17); trustd does not count an SCT from the future (CertificateTransparency.m: \"SCT is in the future\"), so the system-root chain fails SecPolicyCheckSystemTrustedCTRequired; a day later the same chain is trusted",
        "online::amazon.com": "Apple decides, refuses at limbo's validation_time: the leaf's SCTs are dated after it (online::apple.com: SCTs 18:17:17, validation 18:07:17); trustd does not count an SCT from the future (CertificateTransparency.m: \"SCT is in the future\"), so the system-root chain fails SecPolicyCheckSystemTrustedCTRequired; a day later the same chain is trusted",
        "online::apple.com": "Apple decides, refuses at limbo's validation_time: the leaf's SCTs are dated after it (online::apple.com: SCTs 18:17:17, validation 18:07:17); trustd does not count an SCT from the future (CertificateTransparency.m: \"SCT is in the future\"), so the system-root chain fails SecPolicyCheckSystemTrustedCTRequired; a day later the same chain is trusted",
        "online::aws.amazon.com": "Apple decides, refuses at limbo's validation_time: the leaf's SCTs are dated after it (online::apple.com: SCTs 18:17:17, validation 18:07:17); trustd does not count an SCT from the future (CertificateTransparency.m: \"SCT is in the future\"), so the system-root chain fails SecPolicyCheckSystemTrustedCTRequired; a day later the same chain is trusted",
        "online::bing.com": "Apple decides, refuses at limbo's validation_time: the leaf's SCTs are dated after it (online::apple.com: SCTs 18:17:17, validation 18:07:17); trustd does not count an SCT from the future (CertificateTransparency.m: \"SCT is in the future\"), so the system-root chain fails SecPolicyCheckSystemTrustedCTRequired; a day later the same chain is trusted",
        "online::cloudflare.com": "Apple decides, refuses at limbo's validation_time: the leaf's SCTs are dated after it (online::apple.com: SCTs 18:17:17, validation 18:07:17); trustd does not count an SCT from the future (CertificateTransparency.m: \"SCT is in the future\"), so the system-root chain fails SecPolicyCheckSystemTrustedCTRequired; a day later the same chain is trusted",
        "online::docs.python.org": "Apple decides, refuses at limbo's validation_time: the leaf's SCTs are dated after it (online::apple.com: SCTs 18:17:17, validation 18:07:17); trustd does not count an SCT from the future (CertificateTransparency.m: \"SCT is in the future\"), so the system-root chain fails SecPolicyCheckSystemTrustedCTRequired; a day later the same chain is trusted",
        "online::facebook.com": "Apple decides, refuses at limbo's validation_time: the leaf's SCTs are dated after it (online::apple.com: SCTs 18:17:17, validation 18:07:17); trustd does not count an SCT from the future (CertificateTransparency.m: \"SCT is in the future\"), so the system-root chain fails SecPolicyCheckSystemTrustedCTRequired; a day later the same chain is trusted",
        "online::fastly.com": "Apple decides, refuses at limbo's validation_time: the leaf's SCTs are dated after it (online::apple.com: SCTs 18:17:17, validation 18:07:17); trustd does not count an SCT from the future (CertificateTransparency.m: \"SCT is in the future\"), so the system-root chain fails SecPolicyCheckSystemTrustedCTRequired; a day later the same chain is trusted",
        "online::google.com": "Apple decides, refuses at limbo's validation_time: the leaf's SCTs are dated after it (online::apple.com: SCTs 18:17:17, validation 18:07:17); trustd does not count an SCT from the future (CertificateTransparency.m: \"SCT is in the future\"), so the system-root chain fails SecPolicyCheckSystemTrustedCTRequired; a day later the same chain is trusted",
        "online::microsoft.com": "Apple decides, refuses at limbo's validation_time: the leaf's SCTs are dated after it (online::apple.com: SCTs 18:17:17, validation 18:07:17); trustd does not count an SCT from the future (CertificateTransparency.m: \"SCT is in the future\"), so the system-root chain fails SecPolicyCheckSystemTrustedCTRequired; a day later the same chain is trusted",
        "online::s3.amazonaws.com": "Apple decides, refuses at limbo's validation_time: the leaf's SCTs are dated after it (online::apple.com: SCTs 18:17:17, validation 18:07:17); trustd does not count an SCT from the future (CertificateTransparency.m: \"SCT is in the future\"), so the system-root chain fails SecPolicyCheckSystemTrustedCTRequired; a day later the same chain is trusted",
        "online::stackoverflow.com": "Apple decides, refuses at limbo's validation_time: the leaf's SCTs are dated after it (online::apple.com: SCTs 18:17:17, validation 18:07:17); trustd does not count an SCT from the future (CertificateTransparency.m: \"SCT is in the future\"), so the system-root chain fails SecPolicyCheckSystemTrustedCTRequired; a day later the same chain is trusted",
        "online::storage.googleapis.com": "Apple decides, refuses at limbo's validation_time: the leaf's SCTs are dated after it (online::apple.com: SCTs 18:17:17, validation 18:07:17); trustd does not count an SCT from the future (CertificateTransparency.m: \"SCT is in the future\"), so the system-root chain fails SecPolicyCheckSystemTrustedCTRequired; a day later the same chain is trusted",
        "pathlen::max-chain-depth-0-exhausted": "Apple decides, trusts: limbo's max_chain_depth is a limit its validator is configured with; Apple's SSL policy has none (SecPolicy.c SecPolicyCreateSSL_internal)",
        "pathlen::max-chain-depth-1-exhausted": "Apple decides, trusts: limbo's max_chain_depth is a limit its validator is configured with; Apple's SSL policy has none (SecPolicy.c SecPolicyCreateSSL_internal)",
        "rfc5280::aki::cross-signed-root-missing-aki": "Apple decides, trusts: Apple requires no AuthorityKeyIdentifier (SecPolicyServer.c SecPolicyCheckIdLinkage compares AKI and the issuer's SKI only when both are present)",
        "rfc5280::aki::intermediate-missing-aki": "Apple decides, trusts: Apple requires no AuthorityKeyIdentifier (SecPolicyServer.c SecPolicyCheckIdLinkage compares AKI and the issuer's SKI only when both are present)",
        "rfc5280::aki::leaf-missing-aki": "Apple decides, trusts: Apple requires no AuthorityKeyIdentifier (SecPolicyServer.c SecPolicyCheckIdLinkage compares AKI and the issuer's SKI only when both are present)",
        "rfc5280::leaf-ku-keycertsign": "Apple decides, trusts: SecPolicyCreateSSL_internal adds neither kSecPolicyCheckNotCA nor kSecPolicyCheckKeyUsage (only other policies and SecPolicyCreateSSLWithKeyUsage do), so a leaf's cA flag and keyCertSign bit are not checked",
        "rfc5280::nc::invalid-dnsname-leading-period": "Apple decides, trusts: nameconstraints.c SecDNSNameConstraintsMatch takes a constraint starting with '.' as a suffix (foo.example.com ends with .example.com); no form check",
        "rfc5280::nc::nc-forbids-dnsname-wildcard-san": "Apple decides, trusts: as cve-2025-61727 (nameconstraints.c SecDNSNameConstraintsMatch: *.example.com is not within the excluded bar.example.com)",
        "rfc5280::nc::nc-forbids-othername-noop": "Apple decides, refuses: a critical nameConstraints extension in an intermediate with an otherName subtree is refused whether or not a name uses it (SecPolicyServer.c SecPolicyCheckBasicCertificateProcessing step (g): !SecNameConstraintsAreSubtreesSupported && critical; nameconstraints.c supports rfc822Name, dNSName, directoryName, URI and iPAddress only)",
        "rfc5280::nc::nc-permits-invalid-dns-san": "Apple decides, trusts: the SAN .example.com is within example.com for SecDNSNameConstraintsMatch (the character before the suffix is a '.'), and the host matches another SAN entry",
        "rfc5280::nc::not-allowed-in-ee-critical": "Apple decides, trusts: name constraints are read from the intermediates and the anchor only (SecPolicyServer.c SecPolicyCheckBasicCertificateProcessing step (g) stops at the leaf), and criticality is not checked",
        "rfc5280::nc::not-allowed-in-ee-noncritical": "Apple decides, trusts: name constraints are read from the intermediates and the anchor only (SecPolicyServer.c SecPolicyCheckBasicCertificateProcessing step (g) stops at the leaf), and criticality is not checked",
        "rfc5280::nc::permitted-dns-match-noncritical": "Apple decides, trusts: the anchor's name constraints are applied whatever their criticality (SecPolicyServer.c SecPolicyCheckBasicCertificateProcessing: anchor_permitted_subtrees), and the leaf is within them",
        "rfc5280::pc::ica-noncritical-pc": "Apple decides, trusts: SecCertificate.c SecCEPPolicyConstraints parses the extension whatever its criticality, and the policy tree (SecCertificatePathVCVerifyPolicyTree) is satisfied; no criticality check",
        "rfc5280::root-non-critical-basic-constraints": "Apple decides, trusts: SecPolicyServer.c SecPVCParentCertificateChecks asks for basicConstraints with cA true in every parent, not for their criticality",
        "rfc5280::san::underscore-dns": "Apple decides, trusts: SecDNSMatch compares labels as strings; an underscore is not refused",
        "rfc5280::serial::negative": "Apple decides, trusts: SecCertificate.c SecCertificateParse accepts a serial number of 1 to 37 octets with no sign or zero check, and the SSL policy has no serial check (SecPolicy.c SecPolicyCreateSSL_internal)",
        "rfc5280::serial::too-long": "Apple decides, trusts: SecCertificate.c SecCertificateParse accepts a serial number of 1 to 37 octets with no sign or zero check, and the SSL policy has no serial check (SecPolicy.c SecPolicyCreateSSL_internal)",
        "rfc5280::serial::zero": "Apple decides, trusts: SecCertificate.c SecCertificateParse accepts a serial number of 1 to 37 octets with no sign or zero check, and the SSL policy has no serial check (SecPolicy.c SecPolicyCreateSSL_internal)",
        "rfc5280::ski::intermediate-missing-ski": "Apple decides, trusts: Apple requires no SubjectKeyIdentifier (SecPolicyCheckIdLinkage compares only when both are present)",
        "rfc5280::ski::root-missing-ski": "Apple decides, trusts: Apple requires no SubjectKeyIdentifier (SecPolicyCheckIdLinkage compares only when both are present)",
        "rfc5280::validity::notafter-fractional": "Apple decides, refuses: the case validates 5 ms after notAfter, and SecCertificate.c SecCertificateIsValid compares CFAbsoluteTime (fractional seconds): notBefore <= t <= notAfter fails; limbo accepts second granularity",
        "webpki::aki::root-with-aki-all-fields": "Apple decides, trusts: the root's own authorityKeyIdentifier is never compared (SecPolicyServer.c SecPolicyCheckIdLinkage compares a certificate's AKI with its parent's SKI; the anchor has no parent in the path), and SecCertificate.c SecCEPAuthorityKeyIdentifier parses it (issuer and serial both present or both absent)",
        "webpki::aki::root-with-aki-missing-keyidentifier": "Apple decides, trusts: the root's own authorityKeyIdentifier is never compared (SecPolicyServer.c SecPolicyCheckIdLinkage compares a certificate's AKI with its parent's SKI; the anchor has no parent in the path), and SecCertificate.c SecCEPAuthorityKeyIdentifier parses it (issuer and serial both present or both absent)",
        "webpki::aki::root-with-aki-ski-mismatch": "Apple decides, trusts: the root's own authorityKeyIdentifier is never compared (SecPolicyServer.c SecPolicyCheckIdLinkage compares a certificate's AKI with its parent's SKI; the anchor has no parent in the path), and SecCertificate.c SecCEPAuthorityKeyIdentifier parses it (issuer and serial both present or both absent)",
        "webpki::ca-as-leaf": "Apple decides, trusts: SecPolicyCreateSSL_internal adds neither kSecPolicyCheckNotCA nor kSecPolicyCheckKeyUsage (only other policies and SecPolicyCreateSSLWithKeyUsage do), so a leaf's cA flag and keyCertSign bit are not checked",
        "webpki::cn::case-mismatch": "Apple decides, trusts: the CommonName is never matched (SecPolicyLeafCallbacks.c SecPolicyCheckCertSSLHostname reads the SAN only), and the SAN matches the host",
        "webpki::cn::ipv4-hex-mismatch": "Apple decides, trusts: the CommonName is never matched (SecPolicyLeafCallbacks.c SecPolicyCheckCertSSLHostname reads the SAN only), and the SAN matches the host",
        "webpki::cn::ipv4-leading-zeros-mismatch": "Apple decides, trusts: the CommonName is never matched (SecPolicyLeafCallbacks.c SecPolicyCheckCertSSLHostname reads the SAN only), and the SAN matches the host",
        "webpki::cn::ipv6-non-rfc5952-mismatch": "Apple decides, trusts: the CommonName is never matched (SecPolicyLeafCallbacks.c SecPolicyCheckCertSSLHostname reads the SAN only), and the SAN matches the host",
        "webpki::cn::ipv6-uncompressed-mismatch": "Apple decides, trusts: the CommonName is never matched (SecPolicyLeafCallbacks.c SecPolicyCheckCertSSLHostname reads the SAN only), and the SAN matches the host",
        "webpki::cn::ipv6-uppercase-mismatch": "Apple decides, trusts: the CommonName is never matched (SecPolicyLeafCallbacks.c SecPolicyCheckCertSSLHostname reads the SAN only), and the SAN matches the host",
        "webpki::cn::not-in-san": "Apple decides, trusts: the CommonName is never matched (SecPolicyLeafCallbacks.c SecPolicyCheckCertSSLHostname reads the SAN only), and the SAN matches the host",
        "webpki::cn::punycode-not-in-san": "Apple decides, trusts: the CommonName is never matched (SecPolicyLeafCallbacks.c SecPolicyCheckCertSSLHostname reads the SAN only), and the SAN matches the host",
        "webpki::cn::utf8-vs-punycode-mismatch": "Apple decides, trusts: the CommonName is never matched (SecPolicyLeafCallbacks.c SecPolicyCheckCertSSLHostname reads the SAN only), and the SAN matches the host",
        "webpki::cryptographydotio-chain": "Apple decides, refuses at limbo's validation_time: the leaf's SCTs are dated after it (as the online::* cases); trustd does not count an SCT from the future (CertificateTransparency.m: \"SCT is in the future\"), so the system-root chain fails SecPolicyCheckSystemTrustedCTRequired; a day later the same chain is trusted",
        "webpki::ee-basicconstraints-ca": "Apple decides, trusts: SecPolicyCreateSSL_internal adds neither kSecPolicyCheckNotCA nor kSecPolicyCheckKeyUsage (only other policies and SecPolicyCreateSSLWithKeyUsage do), so a leaf's cA flag and keyCertSign bit are not checked",
        "webpki::eku::ee-anyeku": "Apple decides, trusts: the SSL EKU check accepts no EKU and anyExtendedKeyUsage (SecPolicy.c set_ssl_ekus, SecPolicyCheckExtendedKeyUsage) and reads no root EKU; the strict SecPolicyCheckServerAuthEKU applies to leaves issued after 2019-07-01, and this leaf is older",
        "webpki::eku::ee-critical-eku": "Apple decides, trusts: the SSL EKU check accepts no EKU and anyExtendedKeyUsage (SecPolicy.c set_ssl_ekus, SecPolicyCheckExtendedKeyUsage) and reads no root EKU; the strict SecPolicyCheckServerAuthEKU applies to leaves issued after 2019-07-01, and this leaf is older",
        "webpki::eku::ee-without-eku": "Apple decides, trusts: the SSL EKU check accepts no EKU and anyExtendedKeyUsage (SecPolicy.c set_ssl_ekus, SecPolicyCheckExtendedKeyUsage) and reads no root EKU; the strict SecPolicyCheckServerAuthEKU applies to leaves issued after 2019-07-01, and this leaf is older",
        "webpki::eku::root-has-eku": "Apple decides, trusts: the SSL EKU check accepts no EKU and anyExtendedKeyUsage (SecPolicy.c set_ssl_ekus, SecPolicyCheckExtendedKeyUsage) and reads no root EKU; the strict SecPolicyCheckServerAuthEKU applies to leaves issued after 2019-07-01, and this leaf is older",
        "webpki::forbidden-rsa-key-not-divisible-by-8-in-leaf": "Apple decides, trusts: Apple compares RSA sizes in whole bytes (SecCertificate.c SecCertificateIsAtLeastMinKeySize)",
        "webpki::forbidden-rsa-not-divisible-by-8-in-root": "Apple decides, trusts: RSA sizes compared in whole bytes (SecCertificateIsAtLeastMinKeySize)",
        "webpki::nc::intermediate-permitted-excluded-subtrees-both-empty-sequences": "Apple decides, trusts: SecCertificate.c SecCEPNameConstraints parses empty subtrees (nothing is kept when a length is 0), so no constraint applies",
        "webpki::nc::intermediate-permitted-excluded-subtrees-both-null": "Apple decides, trusts: the extension's value is an empty SEQUENCE (30 00), which SecCEPNameConstraints parses with neither subtree present: no constraint applies",
        "webpki::san::public-suffix-private-namespace-wildcard-san": "unknowable: Apple asks CFNetwork's closed _CFHostIsDomainTopLevelForCertificatePolicy (SecPolicyLeafCallbacks.c SecDNSIsTLD) whether s3.amazonaws.com is a top-level domain; atsprobe uses the public suffix list's ICANN section only, since wildcard certificates over private-section names (Amazon's own *.s3.amazonaws.com in online::s3.amazonaws.com, *.github.io) serve Apple devices",
        "webpki::san::san-critical-with-nonempty-subject": "Apple decides, trusts: SecPolicyCheckCertNonEmptySubject asks for a critical SAN only when the subject is empty",
    ]

    static func pems(_ text: String) -> [String] {
        text.components(separatedBy: "-----END CERTIFICATE-----").dropLast()
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) + "\n-----END CERTIFICATE-----\n" }
    }

    static func cases() async throws -> [Case]? {
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        let result = try await ChildProcess.run("/usr/bin/gzip", ["-dc", file.path], timeout: 30)
        guard result.status == 0, !result.timedOut else { throw CocoaError(.fileReadCorruptFile) }
        return try result.stdout.split(separator: "\n").map { try JSONDecoder().decode(Case.self, from: Data($0.utf8)) }
    }

    @Test func everyServerCaseIsAnsweredAndDiffersOnlyWhereDocumented() async throws {
        guard let cases = try await Self.cases() else {
            Issue.record("x509-limbo's server cases are not at \(Self.file.path) (../shared/data/limbo/); not run")
            return
        }
        #expect(cases.count == 197)
        let files = try TemporaryDirectory(prefix: "atsprobe-limbo")
        defer { files.remove() }
        let directory = files.url
        let iso = ISO8601DateFormatter()
        // notafter-fractional validates at 00:00:00.005: read the milliseconds, not now.
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var differences: [String: String] = [:]
        var agreed = 0
        for test in cases {
            let anchorFile = directory.appendingPathComponent("\(agreed + differences.count).pem").path
            try Data(test.anchors_pem.utf8).write(to: URL(fileURLWithPath: anchorFile))
            let anchors = AnchorConfiguration(appAnchorFile: anchorFile)
            let date = test.validation_time.flatMap { iso.date(from: $0.replacingOccurrences(of: "+00:00", with: "Z"))
                ?? fractional.date(from: $0.replacingOccurrences(of: "+00:00", with: "Z")) } ?? Date()
            let trust = ChainTrust(store: try TrustStore(options: anchors), anchors: anchors, date: date,
                                   verifier: SCTVerifier(keys: CTLogList.apple.keys), evaluations: TrustEvaluationCache())
            let started = Date()
            let served: [ServedCertificate]
            do {
                served = try Self.pems(test.chain_pem).map { ServedCertificate(try X509Certificate(pem: $0)) }
            } catch {
                differences[test.id] = "unreadable: \(error)"
                continue
            }
            let name = test.host ?? ""
            let (chain, evaluation) = await trust.judge(served: served, name: name, source: nil, policy: nil, fetchedIssuer: { _ in nil })
            let judgement = ChainJudgement(given: chain.map(\.facts), trust: evaluation, name: name,
                                           rules: RuleSet.default.certificateRules, logs: .apple)
            #expect(Date().timeIntervalSince(started) < 10, "\(test.id) took \(Date().timeIntervalSince(started)) s")
            if judgement.trusted == (test.expected == "SUCCESS") {
                agreed += 1
            } else {
                differences[test.id] = "limbo \(test.expected); atsprobe "
                    + (judgement.trusted ? "trusts" : judgement.failures.map(\.rule).joined(separator: ", "))
            }
        }
        let report = differences.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "\n")
        #expect(Set(differences.keys) == Set(Self.differences.keys), "\(agreed) agree; differences:\n\(report)")
        // Every difference is classified with Apple's answer, and atsprobe gives that answer.
        for (id, reason) in Self.differences {
            #expect(reason.hasPrefix("Apple decides, trusts:") || reason.hasPrefix("Apple decides, refuses")
                    || reason.hasPrefix("unknowable:"), "\(id) is not classified: \(reason)")
            guard let seen = differences[id] else { continue }
            if reason.hasPrefix("Apple decides, trusts:") { #expect(seen.hasSuffix("atsprobe trusts"), "\(id): Apple trusts; \(seen)") }
            if reason.hasPrefix("Apple decides, refuses") { #expect(!seen.hasSuffix("atsprobe trusts"), "\(id): Apple refuses; \(seen)") }
        }
    }
}
