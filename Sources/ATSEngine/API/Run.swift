import ATSPolicy
import ATSProbe
import ATSTrust
import PropertyList
import TLSFacts

/// One run of atsprobe, made from a `RunContext`: the one way in for every question that
/// connects. It owns the run's prober (the context's anchors, read once, its instant, CT log
/// list, resolver and runtime, with the run's caches) and nscurl's runner over that prober, so
/// nothing can pair a prober with a context it was not made from.
///
/// - diagnose, audit, plist check, app: `runner` (`DiagnosticsRunner.run`, `load`, and the
///   `AuditWork`s over it);
/// - probe: `probe(_:)`; pins: `handshake(_:)`;
/// - cert: `judge(_:name:)`, the public `ChainVerifier` with the run's anchors and
///   `NetworkIssuerFetching` over the run's network.
///
/// plist explain connects nowhere: `PolicyExplanation(target:configuration:context:)` takes the
/// context itself, which may then have no runtime.
public struct Run: Sendable {
    /// What the run judges by.
    public let context: RunContext
    /// nscurl's 16 tests over the run's prober, with the context's rule set, timeout, redirect
    /// limit and forecast horizon.
    public let runner: DiagnosticsRunner

    /// The run's prober (`runner`'s).
    package var prober: Prober { runner.prober }

    /// Reads the context's anchors and starts its resolver. Throws `.offline` for a context with
    /// no runtime, `.setup` when a file of anchors cannot be read or the DNS servers not used.
    public init(context: RunContext) throws(RunContextError) {
        try self.init(context: context, admission: nil)
    }

    /// The same, each connection first admitted by `admission` (serve's allow list).
    package init(context: RunContext, admission: ConnectionAdmission?) throws(RunContextError) {
        guard let runtime = context.runtime else { throw .offline }
        var options = context.probeOptions
        options.connectionAdmission = admission
        let prober: Prober
        do {
            prober = try Prober(options: options, runtime: runtime)
        } catch let error as TrustSetupError {
            throw .setup(error)
        } catch {
            throw .setup(TrustSetupError(.engineUnavailable, path: nil, reason: String(describing: error)))
        }
        self.context = context
        runner = DiagnosticsRunner(context: context, prober: prober)
    }

    /// `atsprobe probe`: one handshake with the widest offer, no HTTP request, within the
    /// context's timeout, judged by its rule set's certificate rules and its CT log list.
    public func probe(_ target: Target) async -> ProbeJudgement {
        ProbeJudgement(target: target, result: await handshake(target), logs: context.trust.ctLogs, ruleSet: context.ruleSet)
    }

    /// `atsprobe pins`: the handshake `probe` judges (the widest offer, no HTTP request), as made:
    /// the served chain and the path it was judged by.
    public func handshake(_ target: Target) async -> ProbeResult {
        await prober.probe(ProbeRequest(target: target, offer: Prober.widestOffer, httpRequest: false, timeout: context.timeout))
    }

    /// `atsprobe cert`: `chain` judged for `name` by `ChainVerifier` with the context's anchors
    /// (as the prober read them), instant, rule set and CT log list; issuers the chain leaves out
    /// are fetched by caIssuers over the run's network (`NetworkIssuerFetching`: the run's
    /// resolver and address policy, every fetch within the context's timeout) unless the context
    /// turns fetching off. With the chain's forecast when the context asks for one
    /// (`forecastHorizonSeconds`).
    public func judge(_ chain: CertificateChain, name: String) async -> (judgement: ChainJudgement, forecast: TargetForecast?) {
        let issuers: (any IssuerFetching)? = context.trust.issuerFetching == .off
            ? nil : NetworkIssuerFetching(prober: prober, timeout: context.timeout)
        let verifier = ChainVerifier(store: prober.trustStore, anchors: context.trust.anchors, at: context.instant,
                                     ruleSet: context.ruleSet, ctLogs: context.trust.ctLogs, issuers: issuers)
        guard let horizon = context.forecastHorizonSeconds else { return (await verifier.judge(chain, name: name), nil) }
        let (judgement, forecast) = await verifier.judgeWithForecast(chain, name: name, horizonSeconds: horizon)
        return (judgement, forecast)
    }
}

extension PolicyExplanation {
    /// `atsprobe plist explain` under `context`'s rule set: a URL's requirements laid out offline.
    /// The notes on the dictionary as written come from `configuration` (KeyJudgement).
    public init(target: Target, configuration: ATSConfiguration, context: RunContext, directAddresses: [IPAddress] = []) {
        self.init(target: target, configuration: configuration, ruleSet: context.ruleSet, directAddresses: directAddresses)
    }
}
