import Foundation
import Testing
import TLSFacts
@testable import ATSPolicy
import ATSPolicyFixtures

@Suite("Certificate Transparency, Apple's policy")
struct CertificateTransparencyTests {
    typealias F = CertificateFixture
    typealias Log = CertificateFixture.Log
    static let checkedAt = F.date(2026, 3, 1)

    func ct(_ leaf: CertificateFacts, delivered: [SignedCertificateTimestamp] = [], anchor: AnchorSource? = .system,
            requireCT: Bool = false, at date: Date = checkedAt) -> CTPolicyResult {
        CTPolicy(rules: .documented).evaluate(leaf: leaf, deliveredSCTs: delivered, anchor: anchor,
                            requireCertificateTransparency: requireCT, at: date)
    }

    /// CT is derived once (issue 39, item 7): `probe`'s verdict and its CT violation come from
    /// one `CTPolicy` evaluation, and the violations are the rules' own.
    @Test func theJudgementDerivesCTOnceForTheVerdictAndTheViolation() {
        var observation = testObservation()
        observation.trust.anchor = .system
        let judged = AppleCertificatePolicy.judgement(in: observation, at: referenceDate, rules: .documented, logs: .apple)
        #expect(judged.certificateTransparency.verdict == .nonCompliant)
        let context = AppleCertificatePolicy.context(of: observation, at: referenceDate, requireCertificateTransparency: false,
                                                     rules: .documented, logs: .apple, distrust: .apple)
        let fromVerdict = CertificateTransparencyRule.violations(of: judged.certificateTransparency, context)
        #expect(fromVerdict.count == 1)
        #expect(judged.violations.filter { $0.rule == .certificateTransparency } == fromVerdict)
        #expect(judged.violations == AppleCertificatePolicy.violations(in: observation, at: referenceDate, rules: .documented, logs: .apple))
        observation.trust.anchor = .user
        let underUser = AppleCertificatePolicy.judgement(in: observation, at: referenceDate, rules: .documented, logs: .apple)
        #expect(underUser.certificateTransparency.verdict != .nonCompliant)
        #expect(!underUser.violations.contains { $0.rule == .certificateTransparency })
    }

    @Test func ninetyDayCertificateNeedsTwoEmbeddedSCTs() {
        let one = ct(F.leaf(days: 90, embeddedSCTs: [F.sct(Log.argon2026h1)]))
        #expect(one.verdict == .nonCompliant)
        #expect(one.embeddedRequired == 2)
        #expect(one.embeddedMaximumPerOperator == 1)
        let two = ct(F.leaf(days: 90, embeddedSCTs: [F.sct(Log.argon2026h1), F.sct(Log.nimbus2026)]))
        #expect(two.verdict == .compliant)
        #expect(two.satisfiedBy == .embedded)
        #expect(two.operators == ["Cloudflare", "Google"])
        #expect(two.embeddedSCTs == 2)
    }

    @Test func shortCertificatesCountOneSCTPerOperator() {
        let sameOperator = ct(F.leaf(days: 180, embeddedSCTs: [F.sct(Log.argon2026h1), F.sct(Log.xenon2026h1)]))
        #expect(sameOperator.verdict == .nonCompliant)
        #expect(sameOperator.embeddedCounted == 1)
        #expect(sameOperator.lifetimeDays == 180)
    }

    @Test func twoHundredDayCertificateNeedsThreeEmbeddedSCTs() {
        let two = ct(F.leaf(days: 200, embeddedSCTs: [F.sct(Log.argon2026h1), F.sct(Log.nimbus2026)]))
        #expect(two.verdict == .nonCompliant)
        #expect(two.embeddedRequired == 3)
        #expect(two.reason.contains("2 qualifying embedded SCTs of 3 needed for 200 days"))
        // Two from Google and one from Cloudflare: the cap is 2 per operator at this lifetime.
        let three = ct(F.leaf(days: 200, embeddedSCTs: [F.sct(Log.argon2026h1), F.sct(Log.xenon2026h1), F.sct(Log.nimbus2026)]))
        #expect(three.verdict == .compliant)
        #expect(three.embeddedCounted == 3)
        #expect(three.embeddedMaximumPerOperator == 2)
        // The same log twice counts once.
        let repeated = ct(F.leaf(days: 200, embeddedSCTs: [F.sct(Log.argon2026h1), F.sct(Log.argon2026h1), F.sct(Log.nimbus2026)]))
        #expect(repeated.verdict == .nonCompliant)
    }

    @Test func twoSCTsDeliveredByTLSExtension() {
        let leaf = F.leaf(days: 200)
        let delivered = ct(leaf, delivered: [F.sct(Log.argon2026h1, .tlsExtension), F.sct(Log.nimbus2026, .tlsExtension)])
        #expect(delivered.verdict == .compliant)
        #expect(delivered.satisfiedBy == .delivered)
        #expect(delivered.tlsExtensionSCTs == 2)
        #expect(delivered.embeddedSCTs == 0)
        #expect(delivered.currentLogsCounted == 2)
        let onlyOne = ct(leaf, delivered: [F.sct(Log.argon2026h1, .tlsExtension)])
        #expect(onlyOne.verdict == .nonCompliant)
        // One embedded and one stapled also meets the delivered way.
        let mixed = ct(F.leaf(days: 200, embeddedSCTs: [F.sct(Log.argon2026h1)]),
                       delivered: [F.sct(Log.wyvern2026h1, .ocspStaple)])
        #expect(mixed.verdict == .compliant)
        #expect(mixed.satisfiedBy == .delivered)
        #expect(mixed.ocspStapleSCTs == 1)
    }

    @Test func userAnchorIsExemptUnlessCTIsRequired() {
        let bare = F.leaf(days: 200)
        let user = ct(bare, anchor: .user)
        #expect(user.verdict == .notRequired)
        #expect(user.isCompliant)
        #expect(F.rules(F.chain(bare), anchor: .user) == [])
        #expect(ct(bare, anchor: nil).verdict == .notRequired)
        let required = ct(bare, anchor: .user, requireCT: true)
        #expect(required.verdict == .nonCompliant)
        #expect(required.reason.contains("NSRequiresCertificateTransparency"))
        #expect(F.rules(F.chain(bare), anchor: .user, requireCT: true) == [CertificateRuleID.certificateTransparency])
    }

    @Test func unknownRejectedAndFutureSCTsDoNotCount() {
        let unknownID = String(repeating: "A", count: 43) + "="
        let unknown = ct(F.leaf(days: 90, embeddedSCTs: [F.sct(unknownID), F.sct(Log.argon2026h1)]))
        #expect(unknown.verdict == .nonCompliant)
        #expect(unknown.unknownLogIDs == [unknownID])
        let rejected = ct(F.leaf(days: 90, embeddedSCTs: [F.sct(Log.argon2025h2), F.sct(Log.nimbus2026)]))
        #expect(rejected.verdict == .nonCompliant)
        #expect(rejected.assessments.first?.note == "log rejected since 2026-01-29")
        let future = ct(F.leaf(days: 90, embeddedSCTs: [F.sct(Log.argon2026h1), F.sct(Log.nimbus2026, at: F.date(2026, 6, 1))]))
        #expect(future.verdict == .nonCompliant)
        #expect(future.assessments.last?.note == "timestamp in the future")
    }

    @Test func readOnlyLogsCountOnlyForSCTsIssuedBeforeTheyFroze() {
        let before = ct(F.leaf(notBefore: F.date(2025, 9, 1), days: 90,
                               embeddedSCTs: [F.sct(Log.mammoth2026h1, at: F.date(2025, 9, 1)), F.sct(Log.argon2026h1, at: F.date(2025, 9, 1))]),
                        at: F.date(2025, 10, 1))
        #expect(before.verdict == .compliant)
        let after = ct(F.leaf(days: 90, embeddedSCTs: [F.sct(Log.mammoth2026h1), F.sct(Log.argon2026h1)]))
        #expect(after.verdict == .nonCompliant)
    }

    @Test func staticCTAPILogsAloneDoNotSuffice() {
        let tiled = ct(F.leaf(days: 90), delivered: [F.sct(Log.raio2026h1, .tlsExtension), F.sct(Log.tuscolo2026h1, .tlsExtension)])
        #expect(tiled.verdict == .nonCompliant)
        #expect(tiled.reason.contains("RFC 6962"))
        let mixed = ct(F.leaf(days: 90), delivered: [F.sct(Log.raio2026h1, .tlsExtension), F.sct(Log.argon2026h1, .tlsExtension)])
        #expect(mixed.verdict == .compliant)
    }

    @Test func leavesIssuedBeforeOctober2018AreNotSubjectToCT() {
        let old = ct(F.leaf(notBefore: F.date(2018, 10, 15), days: 365), at: F.date(2019, 1, 1))
        #expect(old.verdict == .notRequired)
        let new = ct(F.leaf(notBefore: F.date(2018, 10, 16), days: 365), at: F.date(2019, 1, 1))
        #expect(new.verdict == .nonCompliant)
        #expect(new.reason.contains("no SCTs were presented"))
    }

    @Test func olderTableByMonthsBefore20210421() {
        // 14 months, issued 2020-01-01: 2 SCTs, no operator cap.
        let leaf = F.leaf(notBefore: F.date(2020, 1, 1), notAfter: F.date(2021, 2, 28))
        let result = ct(leaf, at: F.date(2020, 6, 1))
        #expect(result.embeddedRequired == 2)
        #expect(result.embeddedMaximumPerOperator == nil)
        let twoYears = ct(F.leaf(notBefore: F.date(2020, 1, 1), notAfter: F.date(2021, 12, 31)), at: F.date(2020, 6, 1))
        #expect(twoYears.embeddedRequired == 3)
        let fortyMonths = ct(F.leaf(notBefore: F.date(2019, 1, 1), notAfter: F.date(2022, 5, 1)), anchor: .user, at: F.date(2020, 6, 1))
        #expect(fortyMonths.embeddedRequired == 5)
    }
}
