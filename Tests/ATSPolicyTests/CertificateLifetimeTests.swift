import Foundation
import Testing
import TLSFacts
@testable import ATSPolicy

@Suite("Certificate lifetimes, counted Apple's way")
struct CertificateLifetimeTests {
    typealias F = CertificateFixture

    @Test func inclusiveDayCountFormula() {
        let start = F.date(2021, 1, 1)
        // days = ceil((notAfter - notBefore + 1 s) / 86,400 s)
        #expect(CertificateLifetime(notBefore: start, notAfter: start.addingTimeInterval(398 * F.day - 1)).days == 398)
        #expect(CertificateLifetime(notBefore: start, notAfter: start.addingTimeInterval(398 * F.day)).days == 399)
        #expect(CertificateLifetime(notBefore: start, notAfter: start.addingTimeInterval(397 * F.day)).days == 398)
        #expect(CertificateLifetime(notBefore: start, notAfter: start).days == 1)
        #expect(CertificateLifetime(notBefore: start, notAfter: start.addingTimeInterval(-5)).days == 0)
    }

    @Test func validity398Versus399DaysFromAPublicRoot() {
        let notBefore = F.date(2021, 1, 1)
        #expect(F.nonCTRules(F.chain(F.leaf(notBefore: notBefore, days: 398))) == [])
        #expect(F.nonCTRules(F.chain(F.leaf(notBefore: notBefore, days: 399))) == [CertificateRuleID.validity398])
        // One second past day 398 is a 399th day.
        let oneSecondOver = F.leaf(notBefore: notBefore, notAfter: notBefore.addingTimeInterval(398 * F.day))
        #expect(F.nonCTRules(F.chain(oneSecondOver)) == [CertificateRuleID.validity398])
    }

    @Test func validity398StartsWithCertificatesIssuedOn20200901() {
        let before = F.leaf(notBefore: F.date(2020, 8, 31), days: 399)
        let on = F.leaf(notBefore: F.date(2020, 9, 1), days: 399)
        #expect(F.nonCTRules(F.chain(before)) == [])
        #expect(F.nonCTRules(F.chain(on)) == [CertificateRuleID.validity398])
        // The last second of 2020-08-31 is still before the rule.
        let lastSecond = F.leaf(notBefore: F.date(2020, 9, 1, plus: -1), days: 399)
        #expect(F.nonCTRules(F.chain(lastSecond)) == [])
    }

    @Test func userInstalledAndUnverifiedRootsAreExemptFrom398Days() {
        let leaf = F.leaf(notBefore: F.date(2021, 1, 1), days: 500)
        #expect(F.nonCTRules(F.chain(leaf), anchor: .user) == [])
        #expect(F.nonCTRules(F.chain(leaf), anchor: nil) == [])
        #expect(F.nonCTRules(F.chain(leaf), anchor: .system) == [CertificateRuleID.validity398])
    }

    @Test func validity825Versus826Days() {
        let notBefore = F.date(2019, 7, 1)
        #expect(F.nonCTRules(F.chain(F.leaf(notBefore: notBefore, days: 825)), anchor: .user) == [])
        #expect(F.nonCTRules(F.chain(F.leaf(notBefore: notBefore, days: 826)), anchor: .user) == [CertificateRuleID.validity825])
        // Issued the day before the rule: no limit.
        #expect(F.nonCTRules(F.chain(F.leaf(notBefore: F.date(2019, 6, 30), days: 826)), anchor: .user) == [])
        // A public root issued after 2020-09-01 breaks both limits, each reported.
        let long = F.leaf(notBefore: F.date(2021, 1, 1), days: 826)
        #expect(F.nonCTRules(F.chain(long), anchor: .system) == [CertificateRuleID.validity825, CertificateRuleID.validity398])
    }

    @Test func securityFrameworkCountingDiffersByOneSecondAndOneHour() {
        let notBefore = F.date(2021, 1, 1)
        // Exactly 398 * 86,400 s elapsed: the published rule counts 399 days, the sources allow it.
        let exact = F.leaf(notBefore: notBefore, notAfter: notBefore.addingTimeInterval(398 * F.day))
        #expect(F.nonCTRules(F.chain(exact)) == [CertificateRuleID.validity398])
        #expect(F.nonCTRules(F.chain(exact), rules: .securityFramework) == [])
        let overBy1s = F.leaf(notBefore: notBefore, notAfter: notBefore.addingTimeInterval(398 * F.day + 1))
        #expect(F.nonCTRules(F.chain(overBy1s), rules: .securityFramework) == [CertificateRuleID.validity398])
        // 825 days carry one hour of slip in the sources.
        let start2019 = F.date(2019, 8, 1)
        let slip = F.leaf(notBefore: start2019, notAfter: start2019.addingTimeInterval(825 * F.day + 3_600))
        let overSlip = F.leaf(notBefore: start2019, notAfter: start2019.addingTimeInterval(825 * F.day + 3_601))
        #expect(F.nonCTRules(F.chain(slip), anchor: .user, rules: .securityFramework) == [])
        #expect(F.nonCTRules(F.chain(overSlip), anchor: .user, rules: .securityFramework) == [CertificateRuleID.validity825])
        #expect(F.nonCTRules(F.chain(slip), anchor: .user) == [CertificateRuleID.validity825])
    }

    @Test func ruleDatesPrintAsDays() {
        #expect(dayString(F.date(2020, 9, 1)) == "2020-09-01")
        #expect(dayString(F.date(2000, 2, 29, plus: 86_399)) == "2000-02-29")
        #expect(UTCDay.date(1970, 1, 1).timeIntervalSince1970 == 0)
        #expect(UTCDay.date(2020, 9, 1).timeIntervalSince1970 == 1_598_918_400)
    }
}
