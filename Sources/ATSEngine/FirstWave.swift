import ATSPolicy
import ATSProbe
import ATSTrust
import TLSFacts

extension DiagnosticsRunner {
    /// Makes ahead what a diagnostics run of `targets` under `ruleSet` makes first: OpenSSL's
    /// one-time set-up for reading a certificate (libcrypto's decoders, about 5 million
    /// instructions, paid by the first certificate read: the trust store's `--ca-file`, or the
    /// first handshake's) and each distinct first-hop offer's TLS context, the widest offer's
    /// last (`Prober.prepareContexts`: the process-wide cache every Prober's handshakes take
    /// theirs from, about 1.5 million instructions each). The executable calls it on another
    /// thread while it parses its command line (docs/performance.md, "Start-up"), so that this
    /// runs beside the parse instead of before the first connect; what a run then finds made it
    /// does not make again, and what it does not use has cost only that thread. Stops between
    /// steps once `continuing()` is false.
    package static func prepareFirstWave(of targets: [Target], ruleSet: RuleSet, while continuing: () -> Bool = { true }) {
        var offers: [ClientOffer] = []
        var seen = Set<ClientOffer>()
        for target in targets where target.scheme == .https {
            for test in NSCurlMatrix.tests(host: target.host) + NSCurlMatrix.supplementaryTests(host: target.host) {
                let policy = EffectivePolicy(configuration: test.configuration, host: target.host, scheme: target.scheme,
                                             ruleSet: ruleSet, subdomainReading: .anyDepth)
                let offer = policy.clientOffer(ruleSet: ruleSet).canonical
                if seen.insert(offer).inserted { offers.append(offer) }
            }
        }
        guard !offers.isEmpty, continuing() else { return }
        _ = AppleRootStore.roots.first.flatMap { AppleRootLookup.decode($0.der) }
        guard continuing() else { return }
        Prober.prepareContexts(for: offers + [Prober.widestOffer], while: continuing)
    }
}
