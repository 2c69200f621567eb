import ATSContract
import ATSReport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes
import Hummingbird
import NIOCore
import TextSupport
import TLSFacts

/// The answers: `/probe` (the target's series), `/api/diagnose` (its JSON), `/report` (its HTML
/// report), `/` (what was probed). Each renders with the command line's own renderers.
struct Routes: Sendable {
    let hub: ProbeHub
    let metrics: ServeMetrics

    /// The longest `target` parameter.
    static let maximumTargetBytes = 2048
    /// Prometheus' scrape timeout is shortened by this, as blackbox_exporter does, so the answer
    /// arrives before Prometheus gives up.
    static let scrapeTimeoutOffset = 0.5

    /// A request's target and module, checked: 400, 403 or 404 as cli.md says, before anything
    /// is resolved or connected.
    enum Checked {
        case ok(ProbeKey, Target, ServeConfiguration.Module, labels: MetricsLabels)
        case refused(Response)
    }

    func check(_ request: Request) async -> Checked {
        let query = request.uri.queryParameters
        guard let text = query.get("target"), !text.isEmpty else {
            return .refused(Self.text("give a target: ?target=URL (https://example.com, example.com or example.com:8443)\n", status: .badRequest))
        }
        guard text.utf8.count <= Self.maximumTargetBytes else {
            return .refused(Self.text("the target is longer than \(Self.maximumTargetBytes) bytes\n", status: .badRequest))
        }
        let moduleName = query.get("module") ?? "default"
        let settings = await hub.settings
        guard let module = settings.modules[moduleName] else {
            let known = settings.modules.keys.sorted().map { UntrustedText.escape($0, limit: 64) }.joined(separator: ", ")
            return .refused(Self.text("unknown module '\(UntrustedText.escape(moduleName, limit: 64))' (configured: \(known))\n", status: .notFound))
        }
        let target: Target
        do throws(TargetParseError) {
            target = try Target(parsing: text).connecting(by: module.connectTo)
        } catch {
            return .refused(Self.text("target '\(UntrustedText.escape(text, limit: 300))': \(error.description)\n", status: .badRequest))
        }
        if let refusal = settings.allow.refusal(host: target.host) {
            let hint = settings.allow.isEmpty ? " (the allow list is empty: give allow in the config, or --allow)" : ""
            return .refused(Self.text("refused: \(UntrustedText.escape(refusal, limit: 400))\(hint)\n", status: .forbidden))
        }
        return .ok(ProbeKey(target: target.url, module: moduleName), target, module, labels: module.labels)
    }

    /// Seconds this request may wait: Prometheus' scrape timeout less the offset, else the default.
    static func wait(_ request: Request) -> Double {
        guard let name = HTTPField.Name("X-Prometheus-Scrape-Timeout-Seconds"), let text = request.headers[name],
              let seconds = Double(text), seconds.isFinite, seconds > 0 else { return ATSServer.defaultWaitSeconds }
        return min(ATSServer.defaultWaitSeconds, max(0.1, seconds - scrapeTimeoutOffset))
    }

    func lookup(_ request: Request) async -> (Checked, ProbeHub.Lookup?) {
        let checked = await check(request)
        guard case .ok(let key, let target, let module, _) = checked else { return (checked, nil) }
        return (checked, await hub.outcome(for: key, target: target, module: module, wait: Self.wait(request)))
    }

    func probe(_ request: Request) async -> Response {
        let started = ContinuousClock.now
        let (checked, lookup) = await lookup(request)
        guard case .ok(_, _, _, let labels) = checked, let lookup else {
            if case .refused(let response) = checked { return response }
            return Self.text("internal error\n", status: .internalServerError)
        }
        let outcome: ProbeOutcome?
        switch lookup {
        case .cached(let found), .probed(let found): outcome = found
        case .timedOut: outcome = nil
        case .draining: return Self.text("shutting down\n", status: .serviceUnavailable)
        }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Self.text(ProbeSeries.render(outcome, labels: labels, durationSeconds: seconds), type: "text/plain; version=0.0.4; charset=utf-8")
    }

    /// The document, or the response to give instead.
    enum DocumentAnswer {
        case success(DiagnosticsJSON)
        case failure(Response)
    }

    func document(_ request: Request) async -> DocumentAnswer {
        let (checked, lookup) = await lookup(request)
        if case .refused(let response) = checked { return .failure(response) }
        switch lookup {
        case .cached(let outcome), .probed(let outcome):
            switch outcome.result {
            case .judged(let document): return .success(document)
            case .failed(let message): return .failure(Self.text("the probe could not run: \(message)\n", status: .internalServerError))
            }
        case .timedOut: return .failure(Self.text("no result within the request's time; try again (the probe goes on)\n", status: .gatewayTimeout))
        case .draining, nil: return .failure(Self.text("shutting down\n", status: .serviceUnavailable))
        }
    }

    func diagnose(_ request: Request) async -> Response {
        switch await document(request) {
        case .failure(let response): return response
        case .success(let document):
            // `diagnose --json` for one target: the same encoder, the same document.
            guard let data = try? JSONEncoder.atsprobe().encode(document) else { return Self.text("cannot encode\n", status: .internalServerError) }
            return Self.text(String(decoding: data, as: UTF8.self) + "\n", type: "application/json")
        }
    }

    func report(_ request: Request) async -> Response {
        switch await document(request) {
        case .failure(let response): return response
        case .success(let document):
            // `diagnose --format html` for one target: its records rendered by ATSReport.
            guard let page = try? Report([AuditRecord.document(document)]).rendered(.html) else { return Self.text("cannot render\n", status: .internalServerError) }
            return Self.html(page.text)
        }
    }

    func ready() async -> Response {
        if await hub.draining { return Self.text("Shutting down\n", status: .serviceUnavailable) }
        return Self.text("Ready\n")
    }

    func index() async -> Response {
        Self.html(IndexPage.render(await hub.recent()))
    }

    static func text(_ body: String, status: HTTPResponse.Status = .ok, type: String = "text/plain; charset=utf-8") -> Response {
        Response(status: status, headers: [.contentType: type, .cacheControl: "no-store"], body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    /// HTML with a policy that runs no script and loads nothing from elsewhere, whatever a page holds.
    static func html(_ body: String) -> Response {
        Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
                                        .contentSecurityPolicy: "default-src 'none'; style-src 'unsafe-inline'; img-src data:",
                                        HTTPField.Name("X-Content-Type-Options")!: "nosniff"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }
}

/// `/probe`'s answer: the target's series as `--format prometheus` writes them for a one-target
/// run (ATSReport's `ReportMetrics`: the same families, the module's labels first as
/// `--metrics-label`'s), then the two series every multi-target exporter gives.
enum ProbeSeries {
    static func render(_ outcome: ProbeOutcome?, labels: MetricsLabels, durationSeconds: Double) -> String {
        var families = outcome?.document.map { ReportMetrics.targetFamilies([AuditRecord.document($0)], labels: labels) } ?? []
        let success = outcome?.document?.verdict == .pass
        families.append(MetricFamily(name: "probe_success",
                                     help: "1 when the target loads under App Transport Security's defaults (verdict pass), 0 when not or not judged in time.",
                                     samples: [MetricSample(labels: labels.pairs, value: success ? "1" : "0")]))
        families.append(MetricFamily(name: "probe_duration_seconds", unit: "seconds",
                                     help: "How long this scrape took (a cached answer takes milliseconds).",
                                     samples: [MetricSample(labels: labels.pairs, value: fixed(durationSeconds))]))
        return ReportMetrics.exposition(families, dialect: .prometheus)
    }

    static func fixed(_ seconds: Double) -> String {
        let micros = Int((seconds * 1_000_000).rounded())
        var fraction = String(micros % 1_000_000)
        while fraction.count < 6 { fraction = "0" + fraction }
        return "\(micros / 1_000_000).\(fraction)"
    }
}
