import ATSEngine
import ATSPolicy
import ATSProbe
import ATSTrust
import Foundation
import Testing
import TLSFacts

/// One context, built once (issue 32, item 1): its defaults agree by construction (one CT log
/// list for the SCT signatures and the CT policy), it is checked once, and what it says reaches
/// the prober and the runner without being given twice.
@Suite struct RunContextTests {
    @Test func oneCTLogListByDefault() throws {
        // Before: ProbeOptions.ctLogKeys defaulted to [:] while DiagnosticsOptions.ctLogs was Apple's.
        #expect(ProbeOptions().ctLogs.source == CTLogList.apple.source)
        #expect(ProbeOptions().ctLogKeys == CTLogList.apple.keys)
        let context = try RunContext(ruleSet: .current, runtime: nil)
        #expect(context.trust.ctLogs.source == CTLogList.apple.source)
        #expect(context.probeOptions.ctLogKeys == CTLogList.apple.keys)
    }

    @Test func whatTheContextSaysReachesTheProberAndTheRunner() throws {
        let instant = Date(timeIntervalSince1970: 1_700_000_000)
        let list = CTLogList(source: "a test list", logs: [], keys: [:])
        let context = try RunContext(ruleSet: try #require(RuleSet.named("ios15.4")), instant: instant,
                                     trust: RunContext.Trust(issuerFetching: .anyAddress, ctLogs: list),
                                     resolution: RunContext.Resolution(connectTo: [try ConnectToRule(parsing: "a.test:443:127.0.0.1:8443")]),
                                     timeout: 3, runtime: try .shared)
        let runner = try Run(context: context).runner
        #expect(runner.prober.evaluationDate == instant)
        #expect(runner.prober.options.ctLogs.source == "a test list")
        #expect(runner.prober.options.allowsPrivateIssuerFetch)
        #expect(runner.prober.runtime === (try ProbeRuntime.shared))
        #expect(runner.options.ruleSet.id == "ios15.4")
        #expect(runner.options.timeout == 3)
        let target = try context.target(parsing: "https://a.test/")
        #expect(target.host == "a.test")
        #expect(target.connectAddress == "127.0.0.1" && target.connectPort == 8443)
    }

    @Test func checkedOnceAndNamingNoOption() throws {
        #expect(throws: RunContextError.timeoutOutOfRange(0)) { try RunContext(ruleSet: .current, timeout: 0, runtime: nil) }
        #expect(throws: RunContextError.appAnchorsWithUserRoots) {
            try RunContext(ruleSet: .current, trust: RunContext.Trust(anchors: AnchorConfiguration(caFile: "a.pem", appAnchorFile: "b.pem")), runtime: nil)
        }
        #expect(throws: RunContextError.offline) { try Run(context: RunContext(ruleSet: .current, runtime: nil)) }
        let unreadable = try RunContext(ruleSet: .current, trust: RunContext.Trust(anchors: AnchorConfiguration(caFile: "/nonexistent/roots.pem")), runtime: try .shared)
        #expect(throws: RunContextError.self) { try Run(context: unreadable) }
        let errors: [RunContextError] = [.timeoutOutOfRange(0), .redirectsOutOfRange(-1), .forecastHorizonOutOfRange(0),
                                         .appAnchorsWithUserRoots, .offline,
                                         .setup(TrustSetupError(.unreadableFile, path: "x.pem", reason: "unreadable"))]
        for error in errors { #expect(!error.description.contains("--"), "\(error.description)") }
    }

    /// The forecast horizon is the context's (issue 34): checked once by its initialiser, and what
    /// every runner made from the context forecasts with.
    @Test func theForecastHorizonIsCheckedOnceAndReachesTheRunner() throws {
        let maximum = RunContext.maximumForecastHorizonSeconds
        #expect(maximum == 3_650 * 86_400)
        for wrong in [0, -1, maximum + 1] {
            #expect(throws: RunContextError.forecastHorizonOutOfRange(wrong)) { try RunContext(ruleSet: .current, forecastHorizonSeconds: wrong, runtime: nil) }
        }
        #expect(try RunContext(ruleSet: .current, forecastHorizonSeconds: 1, runtime: nil).forecastHorizonSeconds == 1)
        #expect(try RunContext(ruleSet: .current, forecastHorizonSeconds: maximum, runtime: nil).forecastHorizonSeconds == maximum)
        #expect(try RunContext(ruleSet: .current, runtime: nil).forecastHorizonSeconds == nil)
        #expect(try Run(context: RunContext(ruleSet: .current, runtime: try .shared)).runner.options.forecastHorizonSeconds == nil)
        let context = try RunContext(ruleSet: .current, forecastHorizonSeconds: 90 * 86_400, runtime: try .shared)
        #expect(try Run(context: context).runner.options.forecastHorizonSeconds == 90 * 86_400)
        #expect(RunContextError.forecastHorizonOutOfRange(0).description
                == "the forecast horizon must be between 1 and 315360000 seconds (3650 days), got 0")
    }
}
