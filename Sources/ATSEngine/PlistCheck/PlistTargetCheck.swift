import ATSDiagnostics
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
struct PlistTargetCheck {
    /// The load under one reading of NSIncludesSubdomains.
    struct ReadingLoad {
        var reading: SubdomainReading
        var policy: EffectivePolicy
        var load: LoadOutcome
    }

    var target: Target
    /// Apple's code (any depth): the reading a device runs.
    var policy: EffectivePolicy
    /// One element, or two (any depth first) when the readings pick different entries.
    var loads: [ReadingLoad]
    /// nil for http:// targets: no TLS to measure.
    var diagnostics: DiagnosticsReport?

    var passes: Bool { loads.allSatisfy(\.load.verdict.passed) }
    var unreachable: Bool { diagnostics?.reachability == .unreachable }

    var need: HostNeed {
        guard let diagnostics else { return HostNeed(host: target.host, requirement: .cleartext, appLoadPasses: passes) }
        return HostNeed(host: target.host, suggestion: diagnostics.suggestion, reachable: !unreachable, appLoadPasses: passes)
    }

    static func run(_ target: Target, configuration: ATSConfiguration, runner: DiagnosticsRunner) async -> PlistTargetCheck {
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

extension SubdomainReading {
    /// For people: whose reading it is.
    var label: String {
        switch self {
        case .anyDepth: "Apple's code, NSIncludesSubdomains at any depth"
        case .oneLabel: "Apple's documentation, NSIncludesSubdomains one label down"
        }
    }
}

extension EffectivePolicy {
    /// Which part of the dictionary governs the load, for people.
    var governedBy: String {
        if let match {
            let key = "NSExceptionDomains entry \"\(UntrustedText.escape(match.key, limit: 255))\""
            switch match.kind {
            case .exact: return "\(key) (exact match)"
            case .subdomain(let depth):
                return "\(key) (subdomain \(depth) label\(depth == 1 ? "" : "s") down, NSIncludesSubdomains)"
            case .addressRange(let length): return "\(key) (address range /\(length))"
            }
        }
        switch exemption {
        case .arbitraryLoads?: return "NSAllowsArbitraryLoads (no entry for the host: ATS is off)"
        case .localNetworking?: return "local networking (a local name or loopback address, not subject to ATS)"
        case .ipAddressBeforeIOS17?: return "nothing (IP addresses are not subject to ATS under \(ruleSetID))"
        case nil: return "default ATS (no entry for the host)"
        }
    }
}
