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

    /// limbo id -> why atsprobe answers otherwise: "Apple decides" (Apple's code answers as
    /// atsprobe does), "atsprobe differs from Apple" (to fix), or "unverified" (Apple's answer not
    /// read from its code yet). docs/trust.md, "x509-limbo", groups them.
    static let differences: [String: String] = [
        "crl::crlnumber-critical": "Apple decides, trusts: trustd takes no CRL from the caller (SecTrustServer.c SecTrustServerEvaluate: certificates, anchors, OCSP responses, SCTs, no CRL), and atsprobe reads none",
        "crl::crlnumber-missing": "Apple decides, trusts: trustd takes no CRL from the caller (SecTrustServer.c SecTrustServerEvaluate: certificates, anchors, OCSP responses, SCTs, no CRL), and atsprobe reads none",
        "crl::issuer-missing-crlsign": "Apple decides, trusts: trustd takes no CRL from the caller (SecTrustServer.c SecTrustServerEvaluate: certificates, anchors, OCSP responses, SCTs, no CRL), and atsprobe reads none",
        "crl::revoked-certificate-with-crl": "Apple decides, trusts: trustd takes no CRL from the caller (SecTrustServer.c SecTrustServerEvaluate: certificates, anchors, OCSP responses, SCTs, no CRL), and atsprobe reads none",
        "cve::cve-2025-61727": "unverified: a name-constraint case; OpenSSL accepts it; Apple's name-constraint check not compared",
        "online::akamai.com": "unverified: the leaf's SCTs are dated after limbo's validation_time (online::apple.com: SCTs 18:17:17, validation 18:07:17), so atsprobe counts none and CT fails for this system-root chain; a day later the same chain is trusted; whether Apple counts an SCT dated after the verify time is not read here",
        "online::amazon.com": "unverified: the leaf's SCTs are dated after limbo's validation_time (online::apple.com: SCTs 18:17:17, validation 18:07:17), so atsprobe counts none and CT fails for this system-root chain; a day later the same chain is trusted; whether Apple counts an SCT dated after the verify time is not read here",
        "online::apple.com": "unverified: the leaf's SCTs are dated after limbo's validation_time (online::apple.com: SCTs 18:17:17, validation 18:07:17), so atsprobe counts none and CT fails for this system-root chain; a day later the same chain is trusted; whether Apple counts an SCT dated after the verify time is not read here",
        "online::aws.amazon.com": "unverified: the leaf's SCTs are dated after limbo's validation_time (online::apple.com: SCTs 18:17:17, validation 18:07:17), so atsprobe counts none and CT fails for this system-root chain; a day later the same chain is trusted; whether Apple counts an SCT dated after the verify time is not read here",
        "online::bing.com": "unverified: the leaf's SCTs are dated after limbo's validation_time (online::apple.com: SCTs 18:17:17, validation 18:07:17), so atsprobe counts none and CT fails for this system-root chain; a day later the same chain is trusted; whether Apple counts an SCT dated after the verify time is not read here",
        "online::cloudflare.com": "unverified: the leaf's SCTs are dated after limbo's validation_time (online::apple.com: SCTs 18:17:17, validation 18:07:17), so atsprobe counts none and CT fails for this system-root chain; a day later the same chain is trusted; whether Apple counts an SCT dated after the verify time is not read here",
        "online::docs.python.org": "unverified: the leaf's SCTs are dated after limbo's validation_time (online::apple.com: SCTs 18:17:17, validation 18:07:17), so atsprobe counts none and CT fails for this system-root chain; a day later the same chain is trusted; whether Apple counts an SCT dated after the verify time is not read here",
        "online::facebook.com": "unverified: the leaf's SCTs are dated after limbo's validation_time (online::apple.com: SCTs 18:17:17, validation 18:07:17), so atsprobe counts none and CT fails for this system-root chain; a day later the same chain is trusted; whether Apple counts an SCT dated after the verify time is not read here",
        "online::fastly.com": "unverified: the leaf's SCTs are dated after limbo's validation_time (online::apple.com: SCTs 18:17:17, validation 18:07:17), so atsprobe counts none and CT fails for this system-root chain; a day later the same chain is trusted; whether Apple counts an SCT dated after the verify time is not read here",
        "online::google.com": "unverified: the leaf's SCTs are dated after limbo's validation_time (online::apple.com: SCTs 18:17:17, validation 18:07:17), so atsprobe counts none and CT fails for this system-root chain; a day later the same chain is trusted; whether Apple counts an SCT dated after the verify time is not read here",
        "online::microsoft.com": "unverified: the leaf's SCTs are dated after limbo's validation_time (online::apple.com: SCTs 18:17:17, validation 18:07:17), so atsprobe counts none and CT fails for this system-root chain; a day later the same chain is trusted; whether Apple counts an SCT dated after the verify time is not read here",
        "online::s3.amazonaws.com": "unverified: the leaf's SCTs are dated after limbo's validation_time (online::apple.com: SCTs 18:17:17, validation 18:07:17), so atsprobe counts none and CT fails for this system-root chain; a day later the same chain is trusted; whether Apple counts an SCT dated after the verify time is not read here",
        "online::stackoverflow.com": "unverified: the leaf's SCTs are dated after limbo's validation_time (online::apple.com: SCTs 18:17:17, validation 18:07:17), so atsprobe counts none and CT fails for this system-root chain; a day later the same chain is trusted; whether Apple counts an SCT dated after the verify time is not read here",
        "online::storage.googleapis.com": "unverified: the leaf's SCTs are dated after limbo's validation_time (online::apple.com: SCTs 18:17:17, validation 18:07:17), so atsprobe counts none and CT fails for this system-root chain; a day later the same chain is trusted; whether Apple counts an SCT dated after the verify time is not read here",
        "pathlen::max-chain-depth-0-exhausted": "Apple decides, trusts: limbo's max_chain_depth is a limit its validator is configured with; Apple's SSL policy has none (SecPolicy.c SecPolicyCreateSSL_internal)",
        "pathlen::max-chain-depth-1-exhausted": "Apple decides, trusts: limbo's max_chain_depth is a limit its validator is configured with; Apple's SSL policy has none (SecPolicy.c SecPolicyCreateSSL_internal)",
        "rfc5280::aki::cross-signed-root-missing-aki": "Apple decides, trusts: Apple requires no AuthorityKeyIdentifier (SecPolicyServer.c SecPolicyCheckIdLinkage compares AKI and the issuer's SKI only when both are present)",
        "rfc5280::aki::intermediate-missing-aki": "Apple decides, trusts: Apple requires no AuthorityKeyIdentifier (SecPolicyServer.c SecPolicyCheckIdLinkage compares AKI and the issuer's SKI only when both are present)",
        "rfc5280::aki::leaf-missing-aki": "Apple decides, trusts: Apple requires no AuthorityKeyIdentifier (SecPolicyServer.c SecPolicyCheckIdLinkage compares AKI and the issuer's SKI only when both are present)",
        "rfc5280::ca-empty-subject": "atsprobe differs from Apple, not fixed here: a CA with an empty subject fails SecPolicyCheckCertNonEmptySubject",
        "rfc5280::eku::ee-eku-empty": "Apple decides, trusts: an empty EKU extension lists no usage the SSL EKU check refuses (SecPolicyCheckExtendedKeyUsage, no-or-any EKU allowed); the leaf predates the strict 2019-07-01 check",
        "rfc5280::leaf-ku-keycertsign": "unverified: SecPolicyCreateSSL checks key usage only when the caller asks (SecPolicyCreateSSLWithKeyUsage), so Apple likely trusts; not confirmed",
        "rfc5280::nc::invalid-dnsname-leading-period": "unverified: name constraints are OpenSSL's verdict here; Apple's (SecPolicyServer.c SecPolicyCheckNameConstraints) not compared case by case",
        "rfc5280::nc::nc-forbids-alternate-chain-ica": "atsprobe differs from limbo, Apple unverified: OpenSSL stops at the first path, which breaks a name constraint; Apple's path builder tries other candidate paths (SecTrustServer.c SecPathBuilder), as limbo expects",
        "rfc5280::nc::nc-forbids-dnsname-wildcard-san": "unverified: name constraints are OpenSSL's verdict here; Apple's (SecPolicyServer.c SecPolicyCheckNameConstraints) not compared case by case",
        "rfc5280::nc::nc-forbids-same-chain-ica": "atsprobe differs from limbo, Apple unverified: OpenSSL stops at the first path, which breaks a name constraint; Apple's path builder tries other candidate paths (SecTrustServer.c SecPathBuilder), as limbo expects",
        "rfc5280::nc::nc-permits-invalid-dns-san": "unverified: name constraints are OpenSSL's verdict here; Apple's (SecPolicyServer.c SecPolicyCheckNameConstraints) not compared case by case",
        "rfc5280::nc::not-allowed-in-ee-critical": "unverified: name constraints are OpenSSL's verdict here; Apple's (SecPolicyServer.c SecPolicyCheckNameConstraints) not compared case by case",
        "rfc5280::nc::not-allowed-in-ee-noncritical": "unverified: name constraints are OpenSSL's verdict here; Apple's (SecPolicyServer.c SecPolicyCheckNameConstraints) not compared case by case",
        "rfc5280::nc::permitted-dns-match-noncritical": "unverified: name constraints are OpenSSL's verdict here; Apple's (SecPolicyServer.c SecPolicyCheckNameConstraints) not compared case by case",
        "rfc5280::pc::ica-noncritical-pc": "unverified: policy constraints; Apple's policy tree not compared",
        "rfc5280::root-missing-basic-constraints": "unverified: a root without basicConstraints as the anchor; OpenSSL accepts an anchor as given; Apple's SecPolicyCheckBasicConstraints not compared for anchors",
        "rfc5280::root-non-critical-basic-constraints": "unverified: as root-missing-basic-constraints",
        "rfc5280::san::noncritical-with-empty-subject": "atsprobe differs from Apple, not fixed here: a leaf with an empty subject needs a critical subjectAltName (SecPolicyLeafCallbacks.c SecPolicyCheckCertNonEmptySubject, every SSL policy via SecPolicyAddBasicCertOptions)",
        "rfc5280::san::underscore-dns": "Apple decides, trusts: SecDNSMatch compares labels as strings; an underscore is not refused",
        "rfc5280::serial::negative": "unverified: serial-number form; Apple's SSL policy has no serial check (SecPolicyCreateSSL_internal); its parser not compared",
        "rfc5280::serial::too-long": "unverified: serial-number form; Apple's SSL policy has no serial check (SecPolicyCreateSSL_internal); its parser not compared",
        "rfc5280::serial::zero": "unverified: serial-number form; Apple's SSL policy has no serial check (SecPolicyCreateSSL_internal); its parser not compared",
        "rfc5280::ski::intermediate-missing-ski": "Apple decides, trusts: Apple requires no SubjectKeyIdentifier (SecPolicyCheckIdLinkage compares only when both are present)",
        "rfc5280::ski::root-missing-ski": "Apple decides, trusts: Apple requires no SubjectKeyIdentifier (SecPolicyCheckIdLinkage compares only when both are present)",
        "rfc5280::validity::notafter-fractional": "unverified: a notAfter with fractional seconds, which OpenSSL reads as expired at the validation time; Apple's GeneralizedTime parser not compared",
        "webpki::aki::root-with-aki-all-fields": "unverified: a root's AuthorityKeyIdentifier; SecPolicyCheckIdLinkage not read for a self-signed anchor here; OpenSSL trusts",
        "webpki::aki::root-with-aki-authoritycertissuer": "unverified: a root's AuthorityKeyIdentifier; SecPolicyCheckIdLinkage not read for a self-signed anchor here; OpenSSL trusts",
        "webpki::aki::root-with-aki-authoritycertserialnumber": "unverified: a root's AuthorityKeyIdentifier; SecPolicyCheckIdLinkage not read for a self-signed anchor here; OpenSSL trusts",
        "webpki::aki::root-with-aki-missing-keyidentifier": "unverified: a root's AuthorityKeyIdentifier; SecPolicyCheckIdLinkage not read for a self-signed anchor here; OpenSSL trusts",
        "webpki::aki::root-with-aki-ski-mismatch": "unverified: a root's AuthorityKeyIdentifier; SecPolicyCheckIdLinkage not read for a self-signed anchor here; OpenSSL trusts",
        "webpki::ca-as-leaf": "unverified: as ee-basicconstraints-ca",
        "webpki::cn::case-mismatch": "Apple decides, trusts: the CommonName is never matched (SecPolicyLeafCallbacks.c SecPolicyCheckCertSSLHostname reads the SAN only), and the SAN matches the host",
        "webpki::cn::ipv4-hex-mismatch": "Apple decides, trusts: the CommonName is never matched (SecPolicyLeafCallbacks.c SecPolicyCheckCertSSLHostname reads the SAN only), and the SAN matches the host",
        "webpki::cn::ipv4-leading-zeros-mismatch": "Apple decides, trusts: the CommonName is never matched (SecPolicyLeafCallbacks.c SecPolicyCheckCertSSLHostname reads the SAN only), and the SAN matches the host",
        "webpki::cn::ipv6-non-rfc5952-mismatch": "Apple decides, trusts: the CommonName is never matched (SecPolicyLeafCallbacks.c SecPolicyCheckCertSSLHostname reads the SAN only), and the SAN matches the host",
        "webpki::cn::ipv6-uncompressed-mismatch": "Apple decides, trusts: the CommonName is never matched (SecPolicyLeafCallbacks.c SecPolicyCheckCertSSLHostname reads the SAN only), and the SAN matches the host",
        "webpki::cn::ipv6-uppercase-mismatch": "Apple decides, trusts: the CommonName is never matched (SecPolicyLeafCallbacks.c SecPolicyCheckCertSSLHostname reads the SAN only), and the SAN matches the host",
        "webpki::cn::not-in-san": "Apple decides, trusts: the CommonName is never matched (SecPolicyLeafCallbacks.c SecPolicyCheckCertSSLHostname reads the SAN only), and the SAN matches the host",
        "webpki::cn::punycode-not-in-san": "Apple decides, trusts: the CommonName is never matched (SecPolicyLeafCallbacks.c SecPolicyCheckCertSSLHostname reads the SAN only), and the SAN matches the host",
        "webpki::cn::utf8-vs-punycode-mismatch": "Apple decides, trusts: the CommonName is never matched (SecPolicyLeafCallbacks.c SecPolicyCheckCertSSLHostname reads the SAN only), and the SAN matches the host",
        "webpki::cryptographydotio-chain": "unverified: as the online cases, CT at limbo's validation_time for a chain to a system root",
        "webpki::ee-basicconstraints-ca": "unverified: a leaf with CA:TRUE; no SSL policy option found that refuses it (SecPolicyCreateSSL_internal), not confirmed",
        "webpki::eku::ee-anyeku": "Apple decides, trusts: the SSL EKU check accepts no EKU and anyExtendedKeyUsage (SecPolicy.c set_ssl_ekus, SecPolicyCheckExtendedKeyUsage) and reads no root EKU; the strict SecPolicyCheckServerAuthEKU applies to leaves issued after 2019-07-01, and this leaf is older",
        "webpki::eku::ee-critical-eku": "Apple decides, trusts: the SSL EKU check accepts no EKU and anyExtendedKeyUsage (SecPolicy.c set_ssl_ekus, SecPolicyCheckExtendedKeyUsage) and reads no root EKU; the strict SecPolicyCheckServerAuthEKU applies to leaves issued after 2019-07-01, and this leaf is older",
        "webpki::eku::ee-without-eku": "Apple decides, trusts: the SSL EKU check accepts no EKU and anyExtendedKeyUsage (SecPolicy.c set_ssl_ekus, SecPolicyCheckExtendedKeyUsage) and reads no root EKU; the strict SecPolicyCheckServerAuthEKU applies to leaves issued after 2019-07-01, and this leaf is older",
        "webpki::eku::root-has-eku": "Apple decides, trusts: the SSL EKU check accepts no EKU and anyExtendedKeyUsage (SecPolicy.c set_ssl_ekus, SecPolicyCheckExtendedKeyUsage) and reads no root EKU; the strict SecPolicyCheckServerAuthEKU applies to leaves issued after 2019-07-01, and this leaf is older",
        "webpki::forbidden-p192-leaf": "atsprobe differs from Apple, not fixed here: the SSL server policy requires EC keys of 256 bits or more in every certificate of the path (SecPolicy.c SecPolicyAddStrongKeySizeOptions, SecPolicyServer.c SecPolicyCheckKeySize); atsprobe checks RSA sizes only",
        "webpki::forbidden-p192-root": "atsprobe differs from Apple, not fixed here: the SSL server policy requires EC keys of 256 bits or more in every certificate of the path (SecPolicy.c SecPolicyAddStrongKeySizeOptions, SecPolicyServer.c SecPolicyCheckKeySize); atsprobe checks RSA sizes only",
        "webpki::forbidden-rsa-key-not-divisible-by-8-in-leaf": "Apple decides, trusts: Apple compares RSA sizes in whole bytes (SecCertificate.c SecCertificateIsAtLeastMinKeySize)",
        "webpki::forbidden-rsa-not-divisible-by-8-in-root": "Apple decides, trusts: RSA sizes compared in whole bytes (SecCertificateIsAtLeastMinKeySize)",
        "webpki::malformed-aia": "unverified: Apple's parsing of a malformed AIA extension (SecCertificate.c) not compared",
        "webpki::nc::intermediate-permitted-excluded-subtrees-both-empty-sequences": "unverified: empty or null permitted/excluded subtrees; OpenSSL accepts them; Apple's name-constraint parser not compared",
        "webpki::nc::intermediate-permitted-excluded-subtrees-both-null": "unverified: empty or null permitted/excluded subtrees; OpenSSL accepts them; Apple's name-constraint parser not compared",
        "webpki::san::public-suffix-multi-label-wildcard-san": "atsprobe differs from Apple, not fixed here (as SSLTrustPolicyTest Test11): Apple refuses a wildcard over a top-level domain by asking CFNetwork (SecPolicyLeafCallbacks.c SecDNSIsTLD, _CFHostIsDomainTopLevelForCertificatePolicy, closed source); atsprobe has no public suffix list",
        "webpki::san::public-suffix-private-namespace-wildcard-san": "atsprobe differs from Apple, not fixed here (as SSLTrustPolicyTest Test11): Apple refuses a wildcard over a top-level domain by asking CFNetwork (SecPolicyLeafCallbacks.c SecDNSIsTLD, _CFHostIsDomainTopLevelForCertificatePolicy, closed source); atsprobe has no public suffix list",
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
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("atsprobe-limbo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let iso = ISO8601DateFormatter()
        var differences: [String: String] = [:]
        var agreed = 0
        for test in cases {
            let anchorFile = directory.appendingPathComponent("\(agreed + differences.count).pem").path
            try Data(test.anchors_pem.utf8).write(to: URL(fileURLWithPath: anchorFile))
            let anchors = AnchorConfiguration(appAnchorFile: anchorFile)
            let date = test.validation_time.flatMap { iso.date(from: $0.replacingOccurrences(of: "+00:00", with: "Z")) } ?? Date()
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
    }
}
