import ATSAdvice
import ATSPolicy
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts

/// One target of `plist check`: which part of the app's dictionary applies, the load under
/// the app's own dictionary (under both NSIncludesSubdomains readings when they disagree), and
/// the diagnostics that say what the server really needs.
public struct PlistTargetCheck: Sendable {
    /// The load under one reading of NSIncludesSubdomains.
    public struct ReadingLoad: Sendable {
        public var reading: SubdomainReading
        public var policy: EffectivePolicy
        public var load: LoadOutcome
    }

    public var target: Target
    /// Apple's code (any depth): the reading a device runs.
    public var policy: EffectivePolicy
    /// One element, or two (any depth first) when the readings pick different entries.
    public var loads: [ReadingLoad]
    /// nil for http:// targets: no TLS to measure.
    public var diagnostics: DiagnosticsReport?

    public init(target: Target, policy: EffectivePolicy, loads: [ReadingLoad], diagnostics: DiagnosticsReport?) {
        self.target = target
        self.policy = policy
        self.loads = loads
        self.diagnostics = diagnostics
    }

    public var passes: Bool { loads.allSatisfy(\.load.verdict.passed) }
    public var unreachable: Bool { diagnostics?.reachability == .unreachable }

    public var need: HostNeed {
        guard let suggestion else { return HostNeed(host: target.host, requirement: .cleartext, appLoadPasses: passes) }
        return HostNeed(host: target.host, suggestion: suggestion, reachable: !unreachable, appLoadPasses: passes,
                        certificateTransparencyKeyFails: certificateTransparencyKeyFails,
                        pinsFail: loads.contains { KeyJudgement.failedPinning($0.load.verdict) })
    }

    /// What the host needs in the app's dictionary: the diagnostics' suggestion, unless the app's
    /// dictionary takes away an exemption nscurl's default dictionary grants (`KeyJudgement`,
    /// `ExceptionAdvisor.suggest(under:...)`). nil for http:// targets. The one answer to "what
    /// does this host need": `plist check`'s Needs, `app`'s fix and both tighteners read it, never
    /// the diagnostics' own suggestion (made under nscurl's default dictionary).
    public var suggestion: ExceptionSuggestion? {
        guard let diagnostics else { return nil }
        // Whether or not the app's own load passes: a passing entry the host needs only because
        // the app took the exemption away is needed, not unnecessary (issue 39).
        guard case .none = diagnostics.suggestion, KeyJudgement.takesAwayDefaultExemption(policy, ruleSet: diagnostics.ruleSet) else {
            return diagnostics.suggestion
        }
        let results = diagnostics.tests.map {
            (DiagnosticTest(role: $0.role, section: $0.section, title: $0.title, host: diagnostics.target.host), $0.verdict)
        }
        return ExceptionAdvisor.suggest(under: policy, results: results, ruleSet: diagnostics.ruleSet)
    }

    /// `suggestion` with its evidence per key and its server fixes, from every handshake the
    /// diagnostics made: the diagnostics' advice when the app's dictionary asks what nscurl's
    /// default one does, else the same handshakes advised for `suggestion`. nil for http:// targets.
    public var advice: HostAdvice? {
        guard let diagnostics, let suggestion else { return nil }
        if suggestion == diagnostics.suggestion { return diagnostics.advice }
        return HostAdvice(target: diagnostics.target, ruleSet: diagnostics.ruleSet, tests: diagnostics.tests,
                          suggestion: suggestion, widestProbe: diagnostics.widestProbe)
    }

    /// The entry's NSRequiresCertificateTransparency is what failed a load (`KeyJudgement`): the
    /// observed chain ends at a root that does not require CT and misses Apple's CT policy.
    public var certificateTransparencyKeyFails: Bool {
        loads.contains { load in
            load.load.hops.contains { hop in
                let anchor = (try? hop.result?.get())?.trust.anchor
                return KeyJudgement.certificateTransparencyKeyFailsLoad(load.policy, anchor: anchor, verdict: hop.verdict)
            }
        }
    }

    /// What the entry's NSRequiresCertificateTransparency did for the observed chain; `.absent`
    /// when the entry does not set it or nothing was served.
    public var certificateTransparencyKey: KeyJudgement.CertificateTransparencyKeyEffect {
        guard policy.requiresCertificateTransparency else { return .absent }
        let anchor = loads.lazy.flatMap(\.load.hops).compactMap { try? $0.result?.get() }.first?.trust.anchor
        return KeyJudgement.certificateTransparencyKey(policy, anchor: anchor)
    }

    public static func run(_ target: Target, configuration: ATSConfiguration, runner: DiagnosticsRunner) async -> PlistTargetCheck {
        let ruleSet = runner.options.ruleSet
        let policy = EffectivePolicy(configuration: configuration, host: target.host, scheme: target.scheme, ruleSet: ruleSet)
        let readings: [SubdomainReading] = policy.subdomainDisagreement == nil ? [.anyDepth] : [.anyDepth, .oneLabel]
        async let report: DiagnosticsReport? = target.scheme == .https ? runner.run(target) : nil
        var loads: [ReadingLoad] = []
        for reading in readings {
            let readingPolicy = EffectivePolicy(configuration: configuration, host: target.host, scheme: target.scheme,
                                                ruleSet: ruleSet, subdomainReading: reading)
            let load = await runner.load(target, configuration: configuration, subdomainReading: reading)
            loads.append(ReadingLoad(reading: reading, policy: readingPolicy, load: load))
        }
        return PlistTargetCheck(target: target, policy: policy, loads: loads, diagnostics: await report)
    }
}
