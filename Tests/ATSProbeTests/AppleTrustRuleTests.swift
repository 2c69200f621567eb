import Foundation
import Testing
import ATSPolicy
import ATSProbe
import ATSTestServers
import TLSFacts

/// Apple's certificate rules (ats-reference 2A), each at its boundary, over certificates made
/// now, served on loopback, observed by the real probe and judged at an injected date.
@Suite("Apple trust: certificate rules at their boundaries")
struct AppleTrustRuleTests {
    private func ids(_ violations: [CertificateRuleViolation]) -> [CertificateRuleID] { violations.map(\.rule) }

    // MARK: 398 days (public roots, issued on or after 2020-09-01)

    @Test func publicRoot398DaysPasses399Fails() async throws {
        let fixture = try AppleTrustFixture(anchor: .system, at: TrustClock.judged)
        let ok = try await fixture.observe(TrustClock.spec(inclusiveDays: 398, embeddedSCTs: TrustLogs.threeOperators))
        #expect(ok.trust.anchor == .system)
        #expect(CertificateLifetime(ok.leaf!).days == 398)
        #expect(fixture.violations(ok).isEmpty, "\(fixture.violations(ok))")

        let long = try await fixture.observe(TrustClock.spec(inclusiveDays: 399, embeddedSCTs: TrustLogs.threeOperators))
        #expect(CertificateLifetime(long.leaf!).days == 399)
        let violations = fixture.violations(long)
        // Past 398 days the older SCT table applies (under 15 months: 2), which three SCTs still meet.
        #expect(ids(violations) == [CertificateRuleID.validity398])
        #expect(violations.first?.certificateIndex == 0)
        #expect(violations.first?.detail.contains("certificate 0 [leaf]") == true)
        #expect(violations.first?.detail.contains("valid for 399 days") == true)
    }

    @Test func userRootIsExemptFrom398Days() async throws {
        let fixture = try AppleTrustFixture(anchor: .user, at: TrustClock.judged)
        let long = try await fixture.observe(TrustClock.spec(inclusiveDays: 399))
        #expect(long.trust.anchor == .user)
        #expect(fixture.violations(long).isEmpty)
    }

    @Test func issuedBefore2020_09_01IsExemptFrom398Days() async throws {
        let fixture = try AppleTrustFixture(anchor: .system, at: TrustClock.utc(2020, 9, 10))
        let before = try await fixture.observe(TrustClock.spec(issued: TrustClock.utc(2020, 8, 31), inclusiveDays: 500))
        let onTheDay = try await fixture.observe(TrustClock.spec(issued: TrustClock.utc(2020, 9, 1), inclusiveDays: 500))
        #expect(before.trust.isTrusted && onTheDay.trust.isTrusted)
        #expect(!ids(fixture.violations(before)).contains(CertificateRuleID.validity398))
        #expect(ids(fixture.violations(onTheDay)).contains(CertificateRuleID.validity398))
        // One second before midnight on 2020-08-31 is still before the rule.
        let lastSecond = try await fixture.observe(TrustClock.spec(issued: TrustClock.utc(2020, 9, 1).addingTimeInterval(-1), inclusiveDays: 500))
        #expect(!ids(fixture.violations(lastSecond)).contains(CertificateRuleID.validity398))
    }

    // MARK: 825 days (any root, issued on or after 2019-07-01)

    @Test func anyRoot825DaysPasses826Fails() async throws {
        let fixture = try AppleTrustFixture(anchor: .user, at: TrustClock.judged)
        let ok = try await fixture.observe(TrustClock.spec(inclusiveDays: 825))
        #expect(fixture.violations(ok).isEmpty)
        let long = try await fixture.observe(TrustClock.spec(inclusiveDays: 826))
        let violations = fixture.violations(long)
        #expect(ids(violations) == [CertificateRuleID.validity825])
        #expect(violations.first?.detail.contains("valid for 826 days") == true)
    }

    // MARK: RSA 2048, leaf and issuing CA

    /// Apple compares whole bytes: a 2047-bit modulus (256 bytes) passes, 2040 bits (255) fails.
    @Test func rsaLeaf2047Passes2040Fails() async throws {
        let fixture = try AppleTrustFixture(anchor: .user, at: TrustClock.judged)
        let ok = try await fixture.observe(TrustClock.spec(inclusiveDays: 90, key: .rsa(bits: 2047)))
        #expect(ok.leaf?.publicKey == PublicKeyFacts(algorithm: .rsa, bits: 2047))
        #expect(fixture.violations(ok).isEmpty)
        let small = try await fixture.observe(TrustClock.spec(inclusiveDays: 90, key: .rsa(bits: 2040)))
        #expect(small.leaf?.publicKey == PublicKeyFacts(algorithm: .rsa, bits: 2040))
        let violations = fixture.violations(small)
        #expect(ids(violations) == [CertificateRuleID.rsaKeySize])
        #expect(violations.first?.certificateIndex == 0)
    }

    @Test(arguments: [(2047, false), (2040, true)])
    func rsaIntermediate(bits: Int, fails: Bool) async throws {
        let fixture = try AppleTrustFixture(anchor: .user, at: TrustClock.judged, withIntermediate: true,
                                            intermediateKey: .rsa(bits: bits))
        let observation = try await fixture.observe(TrustClock.spec(inclusiveDays: 90))
        #expect(observation.chain.count == 2)
        #expect(observation.chain[1].publicKey == PublicKeyFacts(algorithm: .rsa, bits: bits))
        #expect(observation.trust.isTrusted)
        let violations = fixture.violations(observation)
        #expect(ids(violations) == (fails ? [CertificateRuleID.rsaKeySize] : []))
        if fails {
            #expect(violations.first?.certificateIndex == 1)
            #expect(violations.first?.detail.contains("certificate 1 [CA]") == true)
        }
    }

    // MARK: SHA-1

    @Test func sha1LeafFails() async throws {
        let fixture = try AppleTrustFixture(anchor: .user, at: TrustClock.judged)
        let observation = try await fixture.observe(TrustClock.spec(inclusiveDays: 90, signatureHash: .sha1))
        #expect(observation.leaf?.signatureHash == .sha1)
        let violations = fixture.violations(observation)
        #expect(ids(violations) == [CertificateRuleID.sha1Signature])
        #expect(violations.first?.certificateIndex == 0)
    }

    /// The root's own SHA-1 self-signature is never relied on: served, it is still no finding.
    @Test func sha1RootSelfSignaturePasses() async throws {
        let fixture = try AppleTrustFixture(anchor: .user, at: TrustClock.judged, rootSignatureHash: .sha1)
        let observation = try await fixture.observe(TrustClock.spec(inclusiveDays: 90), serveRoot: true)
        #expect(observation.chain.count == 2)
        #expect(observation.chain[1].isSelfIssued)
        #expect(observation.chain[1].signatureHash == .sha1)
        #expect(observation.leaf?.signatureHash == .sha256)
        #expect(observation.trust.isTrusted)
        #expect(fixture.violations(observation).isEmpty)
    }

    // MARK: EKU

    /// A user-installed root skips the strict leaf EKU check (SecPolicyCheckServerAuthEKU): no
    /// EKU and anyEKU pass; an EKU without serverAuth or anyEKU still fails the loose SSL check.
    @Test func userAnchoredLeafEKU() async throws {
        let fixture = try AppleTrustFixture(anchor: .user, at: TrustClock.judged)
        let none = try await fixture.observe(TrustClock.spec(inclusiveDays: 90, extendedKeyUsage: nil))
        #expect(none.leaf?.extendedKeyUsage == nil)
        #expect(none.trust.anchor == .user)
        #expect(fixture.violations(none).isEmpty)

        let any = try await fixture.observe(TrustClock.spec(inclusiveDays: 90, extendedKeyUsage: [CertificateFacts.anyExtendedKeyUsageOID]))
        #expect(fixture.violations(any).isEmpty)

        let clientOnly = try await fixture.observe(TrustClock.spec(inclusiveDays: 90, extendedKeyUsage: [CertificateSpec.clientAuth]))
        #expect(ids(fixture.violations(clientOnly)) == [CertificateRuleID.serverAuthEKU])
    }

    /// A system root: the leaf needs an EKU with id-kp-serverAuth itself.
    @Test func systemAnchoredLeafEKU() async throws {
        let fixture = try AppleTrustFixture(anchor: .system, at: TrustClock.judged)
        func nonCT(_ o: Observation) -> [CertificateRuleID] { ids(fixture.violations(o)).filter { $0 != CertificateRuleID.certificateTransparency } }
        let none = try await fixture.observe(TrustClock.spec(inclusiveDays: 90, extendedKeyUsage: nil))
        #expect(none.trust.anchor == .system)
        let violations = fixture.violations(none)
        #expect(nonCT(none) == [CertificateRuleID.serverAuthEKU])
        #expect(violations.first?.detail.contains("no extendedKeyUsage extension") == true)
        let any = try await fixture.observe(TrustClock.spec(inclusiveDays: 90, extendedKeyUsage: [CertificateFacts.anyExtendedKeyUsageOID]))
        #expect(nonCT(any) == [CertificateRuleID.serverAuthEKU])
        let serverAuth = try await fixture.observe(TrustClock.spec(inclusiveDays: 90))
        #expect(serverAuth.leaf?.extendedKeyUsage == [CertificateFacts.serverAuthOID])
        #expect(nonCT(serverAuth).isEmpty)
    }

    /// --at moves every judgement: the same observation under two clocks.
    @Test func evaluationDateIsTheClock() async throws {
        let early = try AppleTrustFixture(anchor: .user, at: TrustClock.judged)
        let spec = TrustClock.spec(inclusiveDays: 90)
        let observation = try await early.observe(spec)
        #expect(observation.trust.isTrusted)
        #expect(observation.trust.evaluatedAt == TrustClock.judged)

        let late = try AppleTrustFixture(anchor: .user, at: TrustClock.utc(2025, 9, 1))
        let expired = try await late.observe(spec)
        #expect(expired.trust.problems.map(\.kind) == [.expired])
        #expect(expired.trust.evaluatedAt == TrustClock.utc(2025, 9, 1))
    }
}
