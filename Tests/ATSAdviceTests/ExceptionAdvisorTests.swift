import Foundation
import Testing
import TLSFacts
@testable import ATSAdvice
@testable import ATSPolicy
import ATSPolicyFixtures

@Suite struct ExceptionAdvisorTests {
    func advise(_ server: SimulatedServer, ruleSet: RuleSet = .documented, observations: [ProbeResult] = []) -> ExceptionSuggestion {
        ExceptionAdvisor.suggest(host: "example.com", results: server.diagnose(ruleSet: ruleSet), observations: observations, ruleSet: ruleSet)
    }

    func exception(_ suggestion: ExceptionSuggestion) -> DomainException? {
        if case .exception(let domain, let exception, _) = suggestion, domain == "example.com" { return exception }
        return nil
    }

    func rationale(_ suggestion: ExceptionSuggestion) -> [KeyEvidence] {
        if case .exception(_, _, let rationale) = suggestion { return rationale }
        return []
    }

    func impossibleReason(_ suggestion: ExceptionSuggestion) -> String? {
        if case .impossible(let reason) = suggestion { return reason }
        return nil
    }

    /// A host the app's dictionary puts under ATS where nscurl's default dictionary exempts it
    /// (NSAllowsLocalNetworking = NO, with or without an entry of its own): nscurl's "TLSv1.2" test
    /// stands for default ATS, so a modern server needs nothing and a TLS 1.1 one needs TLSv1.1
    /// (issue 39: the tightener dropped a needed IP entry as unnecessary).
    @Test func appTakingTheLocalExemptionAwayIsJudgedByTheEntryTests() {
        let app = ATSConfiguration(allowsLocalNetworking: false, exceptionDomains: ["127.0.0.1": DomainException(minimumTLSVersion: "TLSv1.1")])
        for host in ["127.0.0.1", "localhost"] {
            let policy = EffectivePolicy(configuration: app, host: host, ruleSet: .ios17)
            let modern = SimulatedServer(versions: [.tls12, .tls13], suites: [suite(0x1301), suite(0xC02F)])
            #expect(ExceptionAdvisor.suggest(under: policy, results: modern.diagnose(host: host, ruleSet: .ios17), ruleSet: .ios17) == .none, "\(host)")
            let old = SimulatedServer(versions: [.tls10, .tls11], suites: [suite(0xC013)])
            let results = old.diagnose(host: host, ruleSet: .ios17)
            #expect(results.first { $0.0.configuration == .default }?.1.passed == true, "nscurl's default dictionary exempts \(host)")
            let suggestion = ExceptionAdvisor.suggest(under: policy, results: results, ruleSet: .ios17)
            guard case .exception(let domain, let exception, _) = suggestion else {
                Issue.record("\(host): \(suggestion)")
                continue
            }
            #expect(domain == host && exception == DomainException(minimumTLSVersion: "TLSv1.1"))
        }
    }

    @Test func modernServerNeedsNothing() {
        #expect(advise(SimulatedServer(versions: [.tls12, .tls13], suites: [suite(0x1301), suite(0xC02F)])) == ExceptionSuggestion.none)
    }

    @Test func tls11Only() {
        let server = SimulatedServer(versions: [.tls10, .tls11], suites: [suite(0xC013)])
        let suggestion = advise(server, observations: [server.handshake(ClientOffer(minVersion: .tls10, maxVersion: .tls13, suites: SuiteTables.platform2019))])
        #expect(exception(suggestion) == DomainException(minimumTLSVersion: "TLSv1.1"))
        let evidence = rationale(suggestion)
        #expect(evidence.map(\.key) == ["NSExceptionMinimumTLSVersion"])
        #expect(evidence.first?.value == "TLSv1.1")
        #expect(evidence.first?.observation.contains("protocol_version") == true)
        #expect(evidence.first?.observation.contains("best protocol seen: TLS 1.1") == true)
        #expect(suggestion.configuration?.nsDictionaryDescription().contains("NSExceptionMinimumTLSVersion = \"TLSv1.1\";") == true)
    }

    @Test func staticRSAOnly() {
        let suggestion = advise(SimulatedServer(versions: [.tls12], suites: [suite(0x009C)]))
        #expect(exception(suggestion) == DomainException(requiresForwardSecrecy: false))
        #expect(rationale(suggestion).map(\.key) == ["NSExceptionRequiresForwardSecrecy"])
        #expect(rationale(suggestion).first?.value == "false")
    }

    @Test func tls10AndStaticRSA() {
        let suggestion = advise(SimulatedServer(versions: [.tls10], suites: [suite(0x002F)]))
        #expect(exception(suggestion) == DomainException(minimumTLSVersion: "TLSv1.0", requiresForwardSecrecy: false))
        #expect(rationale(suggestion).map(\.key) == ["NSExceptionMinimumTLSVersion", "NSExceptionRequiresForwardSecrecy"])
        // On iOS 26 Allow All Loads no longer speaks TLS 1.0, but an explicit TLSv1.0 entry still
        // sets the minimum (SecProtocolConfiguration.m), so the same entry helps.
        let ios26 = advise(SimulatedServer(versions: [.tls10], suites: [suite(0x002F)]), ruleSet: .ios26)
        #expect(exception(ios26) == DomainException(minimumTLSVersion: "TLSv1.0", requiresForwardSecrecy: false))
    }

    @Test func tripleDESNeedsInsecureHTTP() {
        let suggestion = advise(SimulatedServer(versions: [.tls12], suites: [suite(0xC012)]))
        #expect(exception(suggestion) == DomainException(allowsInsecureHTTPLoads: true, requiresForwardSecrecy: false))
        #expect(rationale(suggestion).map(\.key) == ["NSExceptionRequiresForwardSecrecy", "NSExceptionAllowsInsecureHTTPLoads"])
    }

    @Test func dheOnlyIsImpossible() {
        let server = SimulatedServer(versions: [.tls12], suites: [suite(0x009E)])
        let broad = ProbeResult.success(testObservation(version: .tls12, suite: suite(0x009E)))
        let reason = impossibleReason(advise(server, observations: [broad]))
        #expect(reason?.contains("even Allow All Loads fails") == true)
        #expect(reason?.contains("TLS_DHE_RSA_WITH_AES_128_GCM_SHA256, which the platform (documented) does not offer") == true)
    }

    @Test func expiredIsImpossible() {
        let server = SimulatedServer(versions: [.tls12, .tls13], suites: [suite(0x1301), suite(0xC02F)],
                                     trustProblems: [TrustProblem(kind: .expired, certificateIndex: 0, detail: "leaf expired")])
        let reason = impossibleReason(advise(server))
        #expect(reason?.contains("default trust evaluation fails") == true)
        #expect(reason?.contains("leaf expired") == true)
    }

    @Test func suiteListsDisagree() {
        // ECDHE-RSA-AES128-SHA256 only: fine by the documentation, impossible on a current device.
        let cbc256 = SimulatedServer(versions: [.tls12], suites: [suite(0xC027)])
        #expect(advise(cbc256, ruleSet: .documented) == ExceptionSuggestion.none)
        #expect(impossibleReason(advise(cbc256, ruleSet: .appleCode2022)) != nil)
        // ECDHE-RSA-CHACHA20-POLY1305 only: the reverse.
        let chacha = SimulatedServer(versions: [.tls12], suites: [suite(0xCCA8)])
        #expect(advise(chacha, ruleSet: .appleCode2022) == ExceptionSuggestion.none)
        #expect(exception(advise(chacha, ruleSet: .documented)) == DomainException(allowsInsecureHTTPLoads: true, requiresForwardSecrecy: false))
    }

    @Test func weakLeafKeyUnderATS() {
        // ECC 224 leaf: ATS's leaf key check goes with PFS off (the doc's reading), but Apple's
        // SSL policy refuses EC keys under 256 bits in every certificate under every ATS
        // dictionary (SecPolicy.c SecPolicyAddStrongKeySizeOptions; the ec-key-size rule, which
        // the runner hands in as it does every certificate rule). So no exception helps, and the
        // advice says so naming the key (it suggested NSExceptionRequiresForwardSecrecy = NO
        // before issue 33).
        let server = SimulatedServer(versions: [.tls12], suites: [suite(0xC02B)], key: PublicKeyFacts(algorithm: .ec, bits: 224))
        func withRules(_ ruleSet: RuleSet) -> [(DiagnosticTest, Verdict)] {
            NSCurlMatrix.tests(host: "example.com").map { test in
                let policy = EffectivePolicy(configuration: test.configuration, host: "example.com", ruleSet: ruleSet)
                let result = server.handshake(policy.clientOffer(ruleSet: ruleSet))
                let violations = (try? result.get()).map { AppleCertificatePolicy.violations(in: $0, at: Date(), rules: .documented) } ?? []
                return (test, ATSEvaluator.evaluate(result, under: policy, ruleSet: ruleSet, certificateViolations: violations))
            }
        }
        let suggestion = ExceptionAdvisor.suggest(host: "example.com", results: withRules(.documented), ruleSet: .documented)
        #expect(exception(suggestion) == nil)
        #expect(impossibleReason(suggestion)?.contains("224") == true, "\(suggestion)")
        // Without the certificate rule (a caller that hands in none), ATS's own check alone
        // would be relaxed by PFS off: the rule is what moves the advice.
        #expect(exception(advise(server)) == DomainException(requiresForwardSecrecy: false))
        // A P-256 leaf needs nothing.
        let p256 = SimulatedServer(versions: [.tls12], suites: [suite(0xC02B)], key: PublicKeyFacts(algorithm: .ec, bits: 256))
        #expect(ExceptionAdvisor.suggest(host: "example.com", results: p256.diagnose(ruleSet: .documented), ruleSet: .documented) == ExceptionSuggestion.none)
    }

    @Test func unreachableIsImpossible() {
        let results = NSCurlMatrix.tests(host: "example.com").map { test in
            (test, ATSEvaluator.evaluate(.failure(ProbeFailure(kind: .connectionRefused, detail: "")),
                                         under: EffectivePolicy(configuration: test.configuration, host: "example.com", ruleSet: .documented), ruleSet: .documented, certificateViolations: []))
        }
        let reason = impossibleReason(ExceptionAdvisor.suggest(host: "example.com", results: results, ruleSet: .documented))
        #expect(reason?.contains("cannot be reached") == true)
    }

    @Test func usesExtraTestsWhenGiven() {
        // A leaf hash or key problem that only insecure HTTP relaxes: when the caller also ran
        // "insecure HTTP without PFS off", the advisor can leave PFS on.
        let server = SimulatedServer(versions: [.tls12], suites: [suite(0xC02F)], key: PublicKeyFacts(algorithm: .rsa, bits: 2048), hash: .sha1)
        var results = server.diagnose(ruleSet: .documented)
        let extra = DiagnosticTest(role: .exception(ExceptionKeys(insecureHTTP: true)), section: "extra", host: "example.com")
        let policy = EffectivePolicy(configuration: extra.configuration, host: "example.com", ruleSet: .documented)
        results.append((extra,
                        ATSEvaluator.evaluate(server.handshake(policy.clientOffer(ruleSet: .documented)), under: policy, ruleSet: .documented, certificateViolations: [])))
        #expect(exception(ExceptionAdvisor.suggest(host: "example.com", results: results, ruleSet: .documented)) == DomainException(allowsInsecureHTTPLoads: true))
        #expect(exception(ExceptionAdvisor.suggest(host: "example.com", results: server.diagnose(ruleSet: .documented), ruleSet: .documented))
                == DomainException(allowsInsecureHTTPLoads: true, requiresForwardSecrecy: false))
    }

    /// The candidates come from nscurl's tests (`NSCurlMatrix.candidateExceptions`), cheapest
    /// first: the order of the list the advisor kept by hand before.
    @Test func candidatesFromTheMatrixCheapestFirst() {
        func keys(_ minimum: TLSVersion?, pfsOff: Bool = false, http: Bool = false) -> ExceptionKeys {
            ExceptionKeys(minimum: minimum, forwardSecrecyOff: pfsOff, insecureHTTP: http)
        }
        #expect(ExceptionAdvisor.candidates == [
            keys(nil, pfsOff: true), keys(.tls11), keys(.tls10), keys(.tls11, pfsOff: true), keys(.tls10, pfsOff: true),
            keys(nil, http: true), keys(nil, pfsOff: true, http: true), keys(.tls11, http: true), keys(.tls10, http: true),
            keys(.tls11, pfsOff: true, http: true), keys(.tls10, pfsOff: true, http: true),
        ])
        #expect(ExceptionAdvisor.strongerMinimum(than: .tls10) == .tls11)
        #expect(ExceptionAdvisor.strongerMinimum(than: .tls11) == nil)
    }
}
