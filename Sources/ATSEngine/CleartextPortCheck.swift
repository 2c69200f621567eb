import ATSAdvice
import ATSPolicy
import ATSProbe
import TextSupport
import TLSFacts

/// `diagnose http://HOST:PORT/` where PORT speaks TLS (issue 25): the cleartext request gets no
/// HTTP answer (a TLS server closes, sends an alert, or, as nginx, answers 400 "The plain HTTP
/// request was sent to HTTPS port"), and no Info.plist key makes an http:// load succeed
/// there: NSExceptionAllowsInsecureHTTPLoads would be wrong advice. One handshake tells; when
/// it completes, the https URL is diagnosed in full and the suggestion says to load it.
enum CleartextPortCheck {
    /// Whether the http:// loads saw no working HTTP server: no status at all, or only 400.
    static func noHTTPServer(_ outcomes: [TestOutcome]) -> Bool {
        let answers = outcomes.flatMap(\.hops).compactMap(\.cleartext)
        guard !answers.isEmpty else { return false }
        return answers.allSatisfy { $0.statusCode == nil || $0.statusCode == 400 }
    }

    /// The suggestion for an http:// target whose port speaks TLS, or nil when it does not
    /// (or the target is https://).
    static func suggestion(for target: Target, outcomes: [TestOutcome], runner: DiagnosticsRunner,
                           loads: LoadCache) async -> ExceptionSuggestion? {
        guard target.scheme == .http, noHTTPServer(outcomes) else { return nil }
        var https = target
        https.scheme = .https
        let hello = ProbeRequest(target: https, offer: Prober.widestOffer, httpRequest: false, timeout: runner.options.timeout)
        guard case .success = await loads.result(for: hello) else { return nil }
        let report = await runner.run(https)
        var reason = "port \(target.port) speaks TLS, not HTTP: no Info.plist key makes this http:// URL load; load \(https.url) instead"
        switch report.suggestion {
        case .none: reason += " (it passes default ATS)"
        case .exception(let domain, let exception, _):
            let keys = exception.propertyList.keys.sorted().joined(separator: ", ")
            reason += " (over https it needs an NSExceptionDomains entry for \(UntrustedText.escape(domain)): \(keys))"
        case .impossible(let why): reason += " (over https it fails too: \(why))"
        }
        return .impossible(reason: reason)
    }
}
