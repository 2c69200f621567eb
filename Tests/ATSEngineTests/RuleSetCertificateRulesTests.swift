import Foundation
import Testing
import ATSEngine
import ATSPolicy
import ATSProbe
import ATSTestServers
import TLSFacts

/// Each rule set judges certificates by its own reading (`RuleSet.certificateRules`), end to end:
/// the releases count a lifetime as Apple's code does (SecPolicyServer.c: elapsed seconds, one
/// hour of slip at 825 days), `documented` as HT210176 reads (whole days, counted inclusively).
@Suite("Certificate rules by rule set")
struct RuleSetCertificateRulesTests {
    /// A leaf valid for 825 days and 30 minutes, under a user root (the 825-day rule applies to
    /// every anchor): 826 days to the published rule, inside Apple's hour of slip.
    @Test func aLifetimeInsideApplesSlipPassesTheReleasesAndFailsThePublishedRule() async throws {
        let pki = try TestPKI()
        let prober = try Prober(options: ProbeOptions(caFile: try pki.writeRootPEM(), useSystemTrustStore: false))
        let notBefore = Date(timeIntervalSinceNow: -86_400)
        let spec = CertificateSpec(notBefore: notBefore, notAfter: notBefore.addingTimeInterval(825 * 86_400 + 1_800))
        let server = try TestTLSServer.start(TLSServerConfiguration(identity: try pki.issue(spec)))
        defer { server.stop() }
        let target = Target(host: "127.0.0.1", port: server.port)

        var verdicts: [String: Verdict] = [:]
        for ruleSet in RuleSet.all {
            let runner = DiagnosticsRunner(prober: prober, options: DiagnosticsOptions(ruleSet: ruleSet, timeout: 10))
            verdicts[ruleSet.id] = await runner.load(target, configuration: ATSConfiguration()).verdict
        }
        // Every release counts as its era's code does (825 days and 1 hour slip, Security-59306 to
        // -61901): iOS 13 - 15.3 (ios13, named ios16 until issue 39) trusts it too.
        for release in RuleSet.all where release.releases != nil {
            #expect(verdicts[release.id]?.passed == true, "\(release.id): \(String(describing: verdicts[release.id]))")
        }
        for published in ["documented"] {
            let verdict = try #require(verdicts[published])
            #expect(!verdict.passed)
            #expect(verdict.reasons.contains { $0.message.contains("826 days") }, "\(verdict.reasons.map(\.message))")
        }
    }

    @Test func theReleasesReadApplesCodeAndDocumentedThePublishedRule() {
        #expect(RuleSet.ios26.certificateRules == .securityFramework)
        #expect(RuleSet.appleCode2022.certificateRules == .securityFramework)
        #expect(RuleSet.documented.certificateRules == .documented)
        #expect(RuleSet.ios13.certificateRules == .securityFramework)
        #expect(RuleSet.ios17.certificateRules == .securityFramework)
    }
}
