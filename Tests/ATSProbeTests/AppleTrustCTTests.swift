import Foundation
import Testing
import ATSPolicy
import ATSProbe
import ATSTestServers
import TLSFacts

/// Apple's CT policy over real handshakes: SCTs embedded, delivered by TLS extension and by
/// OCSP staple, counted by the leaf's lifetime, for system roots and under
/// NSRequiresCertificateTransparency.
@Suite("Apple trust: Certificate Transparency")
struct AppleTrustCTTests {
    let sct = { (log: String) in TrustLogs.sct(log) }

    private func ctRule(_ violations: [CertificateRuleViolation]) -> Bool {
        violations.contains { $0.rule == CertificateRuleID.certificateTransparency && $0.certificateIndex == 0 }
    }

    // MARK: Embedded, by lifetime

    /// Up to 180 days: 2 SCTs, at most one per operator counted.
    @Test func upTo180DaysNeedsTwoOperators() async throws {
        let fixture = try AppleTrustFixture(anchor: .system, at: TrustClock.judged)
        let two = try await fixture.observe(TrustClock.spec(inclusiveDays: 180, embeddedSCTs: [
            sct(TrustLogs.googleArgon), sct(TrustLogs.cloudflareNimbus)]))
        let result = fixture.ct(two)
        #expect(result.verdict == .compliant)
        #expect(result.satisfiedBy == .embedded)
        #expect(result.embeddedRequired == 2)
        #expect(result.operators == ["Cloudflare", "Google"])
        #expect(fixture.violations(two).isEmpty)

        let one = try await fixture.observe(TrustClock.spec(inclusiveDays: 180, embeddedSCTs: [sct(TrustLogs.googleArgon)]))
        #expect(fixture.ct(one).verdict == .nonCompliant)
        #expect(ctRule(fixture.violations(one)))

        // Two Google logs are one operator: only one counts.
        let sameOperator = try await fixture.observe(TrustClock.spec(inclusiveDays: 180, embeddedSCTs: [
            sct(TrustLogs.googleArgon), sct(TrustLogs.googleXenon)]))
        let capped = fixture.ct(sameOperator)
        #expect(capped.verdict == .nonCompliant)
        #expect(capped.embeddedCounted == 1)
        #expect(ctRule(fixture.violations(sameOperator)))
    }

    /// 181 to 398 days: 3 SCTs, at most two per operator counted.
    @Test func from181To398DaysNeedsThree() async throws {
        let fixture = try AppleTrustFixture(anchor: .system, at: TrustClock.judged)
        let three = try await fixture.observe(TrustClock.spec(inclusiveDays: 181, embeddedSCTs: [
            sct(TrustLogs.googleArgon), sct(TrustLogs.googleXenon), sct(TrustLogs.cloudflareNimbus)]))
        let result = fixture.ct(three)
        #expect(result.embeddedRequired == 3)
        #expect(result.embeddedMaximumPerOperator == 2)
        #expect(result.verdict == .compliant)
        #expect(fixture.violations(three).isEmpty)

        let two = try await fixture.observe(TrustClock.spec(inclusiveDays: 181, embeddedSCTs: [
            sct(TrustLogs.googleArgon), sct(TrustLogs.cloudflareNimbus)]))
        let short = fixture.ct(two)
        #expect(short.verdict == .nonCompliant)
        #expect(short.reason.contains("2 qualifying embedded SCTs of 3 needed for 181 days"), "\(short.reason)")
        #expect(ctRule(fixture.violations(two)))
    }

    @Test func noSCTsAtAllFails() async throws {
        let fixture = try AppleTrustFixture(anchor: .system, at: TrustClock.judged)
        let none = try await fixture.observe(TrustClock.spec(inclusiveDays: 90))
        #expect(fixture.ct(none).reason.contains("no SCTs were presented"))
        let violations = fixture.violations(none)
        #expect(violations.map(\.rule) == [CertificateRuleID.certificateTransparency])
        #expect(violations.first?.detail.contains("certificate 0 [leaf]") == true)
    }

    // MARK: Delivered

    @Test func twoSCTsByTLSExtensionPass() async throws {
        let fixture = try AppleTrustFixture(anchor: .system, at: TrustClock.judged)
        let observation = try await fixture.observe(TrustClock.spec(inclusiveDays: 300)) { configuration, identity in
            configuration.sctListExtension = serializedSCTList([sct(TrustLogs.googleArgon), sct(TrustLogs.digiCertWyvern)], certificate: identity.certificateDER)
        }
        let result = fixture.ct(observation)
        #expect(result.tlsExtensionSCTs == 2)
        #expect(result.verdict == .compliant)
        #expect(result.satisfiedBy == .delivered)
        #expect(fixture.violations(observation).isEmpty)
    }

    @Test func oneSCTByTLSExtensionFails() async throws {
        let fixture = try AppleTrustFixture(anchor: .system, at: TrustClock.judged)
        let observation = try await fixture.observe(TrustClock.spec(inclusiveDays: 90)) { configuration, identity in
            configuration.sctListExtension = serializedSCTList([sct(TrustLogs.googleArgon)], certificate: identity.certificateDER)
        }
        #expect(fixture.ct(observation).verdict == .nonCompliant)
        #expect(ctRule(fixture.violations(observation)))
    }

    @Test func twoSCTsByOCSPStaplePass() async throws {
        let fixture = try AppleTrustFixture(anchor: .system, at: TrustClock.judged, withIntermediate: true)
        let observation = try await fixture.observe(TrustClock.spec(inclusiveDays: 300)) { configuration, identity in
            let response = try fixture.pki.ocspResponse(for: identity, thisUpdate: TrustClock.issued, nextUpdate: TrustClock.judged.addingTimeInterval(86_400))
            configuration.ocspResponseDER = try OCSPWithSCTs.splice(response, scts: [sct(TrustLogs.cloudflareNimbus), sct(TrustLogs.digiCertWyvern)], certificate: identity.certificateDER)
        }
        let result = fixture.ct(observation)
        #expect(result.ocspStapleSCTs == 2)
        #expect(result.verdict == .compliant)
        #expect(result.satisfiedBy == .delivered)
        #expect(fixture.violations(observation).isEmpty)
    }

    /// One embedded and one delivered SCT from current logs also meet the delivered way.
    @Test func embeddedPlusOneDeliveredPass() async throws {
        let fixture = try AppleTrustFixture(anchor: .system, at: TrustClock.judged)
        let observation = try await fixture.observe(TrustClock.spec(inclusiveDays: 300, embeddedSCTs: [sct(TrustLogs.googleArgon)])) { configuration, identity in
            configuration.sctListExtension = serializedSCTList([sct(TrustLogs.cloudflareNimbus)], certificate: identity.certificateDER)
        }
        #expect(fixture.ct(observation).satisfiedBy == .delivered)
        #expect(fixture.violations(observation).isEmpty)
    }

    // MARK: Which chains

    @Test func userRootNeedsNoCTUnlessRequired() async throws {
        let fixture = try AppleTrustFixture(anchor: .user, at: TrustClock.judged)
        let observation = try await fixture.observe(TrustClock.spec(inclusiveDays: 90))
        #expect(fixture.ct(observation).verdict == .notRequired)
        #expect(fixture.violations(observation).isEmpty)
        // NSRequiresCertificateTransparency makes CT apply to any chain.
        #expect(fixture.ct(observation, requireCertificateTransparency: true).verdict == .nonCompliant)
        #expect(ctRule(fixture.violations(observation, requireCertificateTransparency: true)))
    }

    /// An app dictionary with NSRequiresCertificateTransparency for the host: the policy carries
    /// it, the rules apply it, and the evaluator fails the load with the CT rule as the reason.
    @Test func nsRequiresCertificateTransparencyFailsTheLoad() async throws {
        let fixture = try AppleTrustFixture(anchor: .user, at: TrustClock.judged)
        let observation = try await fixture.observe(TrustClock.spec(inclusiveDays: 90))
        let configuration = ATSConfiguration(propertyList: [
            "NSExceptionDomains": ["127.0.0.1": ["NSRequiresCertificateTransparency": true]],
        ])
        let policy = EffectivePolicy(configuration: configuration, host: "127.0.0.1", ruleSet: .documented)
        #expect(policy.requiresCertificateTransparency)
        let violations = fixture.violations(observation, requireCertificateTransparency: policy.requiresCertificateTransparency)
        let verdict = ATSEvaluator.evaluate(.success(observation), under: policy, ruleSet: .documented,
                                            certificateViolations: violations)
        #expect(!verdict.passed)
        #expect(verdict.reasons.contains { $0.message.contains("[certificate-transparency]") })

        let without = EffectivePolicy(configuration: .default, host: "127.0.0.1", ruleSet: .documented)
        #expect(!without.requiresCertificateTransparency)
        #expect(fixture.violations(observation, requireCertificateTransparency: without.requiresCertificateTransparency).isEmpty)
    }

    // MARK: Signatures

    /// Every SCT's signature is checked: embedded ones over the precertificate, delivered ones
    /// over the leaf. A signature that does not verify is not counted, whatever the log.
    @Test func signaturesAreCheckedAndBadOnesNotCounted() async throws {
        let fixture = try AppleTrustFixture(anchor: .system, at: TrustClock.judged)
        let good = try await fixture.observe(TrustClock.spec(inclusiveDays: 90, embeddedSCTs: [
            sct(TrustLogs.googleArgon), sct(TrustLogs.cloudflareNimbus)])) { configuration, identity in
            configuration.sctListExtension = serializedSCTList([sct(TrustLogs.digiCertWyvern)], certificate: identity.certificateDER)
        }
        #expect(good.leaf?.embeddedSCTs.map(\.signature) == [.valid, .valid])
        #expect(good.deliveredSCTs.map(\.signature) == [.valid])

        // The same logs, but signatures that are not theirs: a dummy, and one made for another certificate.
        let other = try fixture.pki.issue(TrustClock.spec(inclusiveDays: 90))
        let forged = try await fixture.observe(TrustClock.spec(inclusiveDays: 90, embeddedSCTs: [
            TestSCT(logID: TrustLogs.argon.logID, timestamp: TrustClock.issued), sct(TrustLogs.cloudflareNimbus)])) { configuration, _ in
            configuration.sctListExtension = serializedSCTList([sct(TrustLogs.digiCertWyvern)], certificate: other.certificateDER)
        }
        #expect(forged.leaf?.embeddedSCTs.map(\.signature) == [.invalid, .valid])
        #expect(forged.deliveredSCTs.map(\.signature) == [.invalid])
        let result = fixture.ct(forged)
        #expect(result.verdict == .nonCompliant)
        #expect(result.embeddedCounted == 1)
        #expect(result.assessments.filter { $0.note == "the log's signature does not verify" }.count == 2)
        #expect(result.reason.hasSuffix("; not counted: 2 SCTs whose signature does not verify"), "\(result.reason)")
        #expect(ctRule(fixture.violations(forged)))
    }

    /// A prober that knows no key for the log cannot check it; an embedded SCT whose leaf's
    /// issuer is nowhere to be found cannot be checked either. Neither counts.
    @Test func uncheckableSignaturesAreSaidSo() async throws {
        let fixture = try AppleTrustFixture(anchor: .system, at: TrustClock.judged)
        let unknown = TestSCT(log: try TestCTLog(name: "unlisted", operator: "Nobody"), timestamp: TrustClock.issued)
        let observation = try await fixture.observe(TrustClock.spec(inclusiveDays: 90, embeddedSCTs: [unknown, sct(TrustLogs.googleArgon)]))
        #expect(observation.leaf?.embeddedSCTs.map(\.signature) == [.unknownLog, .valid])

        // A prober whose store lacks the root, facing a leaf the root signed directly (root not served).
        let bare = try Prober(options: ProbeOptions(useSystemTrustStore: false, evaluationDate: TrustClock.judged, ctLogs: TrustLogs.list))
        let identity = try fixture.pki.issue(TrustClock.spec(inclusiveDays: 90, embeddedSCTs: [sct(TrustLogs.googleArgon)]))
        let server = try TestTLSServer.start(TLSServerConfiguration(identity: identity))
        defer { server.stop() }
        let probed = try await bare.probe(ProbeRequest(target: Target(host: "127.0.0.1", port: server.port), offer: Prober.widestOffer, timeout: 5)).get()
        #expect(probed.leaf?.embeddedSCTs.map(\.signature) == [.noIssuer])
        let ct = AppleCertificatePolicy.judgement(in: probed, at: TrustClock.judged, requireCertificateTransparency: true, rules: .documented, logs: TrustLogs.list).certificateTransparency
        #expect(ct.assessments.first?.note == "the leaf's issuer is unknown: signature not checked")
    }
}
