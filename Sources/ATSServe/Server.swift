import ATSEngine
import ATSProbe
import ATSReport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle
import TextSupport
import TLSFacts
import UnixSignals
#if canImport(Glibc)
import Glibc
#endif

/// `atsprobe serve` (docs/serve.md): Prometheus' multi-target exporter pattern over nscurl's
/// diagnostics, and a small web service, on Hummingbird.
package enum ATSServer {
    /// Seconds a connection may wait for a complete request head (the first, or the next on a
    /// kept-alive connection). Hummingbird's idle timeout counts only whole HTTP parts, so a
    /// client trickling header bytes is cut off after this too.
    package static let headerTimeoutSeconds: Int64 = 10
    /// Request heads larger than this are refused by the HTTP decoder.
    package static let maximumHeaderBytes = 16 * 1024
    /// The longest request target (path and query).
    package static let maximumURIBytes = 4096
    /// How long SIGTERM lets probes in flight finish before they are cancelled.
    package static let drainSeconds = 10.0
    /// How long a request without a scrape timeout waits for its probe.
    package static let defaultWaitSeconds = 120.0

    /// Runs until SIGTERM or SIGINT. `configPath`: reread on SIGHUP (nil: the configuration is
    /// fixed). Prints "listening on HOST:PORT" on standard error once bound. Throws when the
    /// address cannot be bound.
    package static func run(configuration: ServeConfiguration, configPath: String?, overrides: @escaping @Sendable (inout ServeConfiguration) -> Void,
                           environment: ServeEnvironment) async throws {
        var logger = Logger(label: "atsprobe-serve") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = .info
        var quiet = Logger(label: "atsprobe-serve-http") { StreamLogHandler.standardError(label: $0) }
        quiet.logLevel = .warning
        let metrics = ServeMetrics()
        let hub = ProbeHub(settings: ProbeHub.Settings(configuration), environment: environment, metrics: metrics)
        let routes = Routes(hub: hub, metrics: metrics)

        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: RequestLog<BasicRequestContext>(logger: logger, metrics: metrics))
        router.get("/probe") { (request: Request, _: BasicRequestContext) async -> Response in await routes.probe(request) }
        router.get("/api/diagnose") { (request: Request, _: BasicRequestContext) async -> Response in await routes.diagnose(request) }
        router.get("/report") { (request: Request, _: BasicRequestContext) async -> Response in await routes.report(request) }
        router.get("/metrics") { (_: Request, _: BasicRequestContext) -> Response in
            Routes.text(metrics.render(), type: "text/plain; version=0.0.4; charset=utf-8")
        }
        router.get("/-/healthy") { (_: Request, _: BasicRequestContext) -> Response in Routes.text("Healthy\n") }
        router.get("/-/ready") { (_: Request, _: BasicRequestContext) async -> Response in await routes.ready() }
        router.get("/") { (_: Request, _: BasicRequestContext) async -> Response in await routes.index() }

        let listen = configuration.listen
        let decoder = HTTP1Channel.Configuration.DecoderConfiguration(maxHeaderFieldSize: maximumHeaderBytes, maxHeaderListSize: maximumHeaderBytes,
                                                                      maxHeaderFieldCount: 100)
        let http = HTTP1Channel.Configuration(idleTimeout: .seconds(headerTimeoutSeconds), httpDecoderConfiguration: decoder)
        let app = Application(
            router: router,
            server: .http1(configuration: http),
            configuration: ApplicationConfiguration(address: .hostname(listen.host, port: listen.port), serverName: nil),
            onServerRunning: { (channel: any Channel) async in
                let port = channel.localAddress?.port ?? listen.port
                let line = "listening on \(ServeConfiguration.ListenAddress(host: listen.host, port: port))\n"
                _ = line.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
            },
            logger: quiet)
        let drain = DrainService(hub: hub, runtime: environment.runtime, logger: logger)
        let reload = ReloadService(hub: hub, path: configPath, overrides: overrides, listen: listen, logger: logger)
        // Shut down last first: the drain (no new probe, then a bound on those in flight) begins
        // while the server still answers the scrapes waiting on them; then the server stops.
        let services: [ServiceGroupConfiguration.ServiceConfiguration] = [.init(service: app), .init(service: reload), .init(service: drain)]
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: services, gracefulShutdownSignals: [.sigterm, .sigint],
                                                                          logger: quiet))
        try await group.run()
    }
}

/// On shutdown: no new probe starts, probes in flight get `ATSServer.drainSeconds`, then the
/// runtime is shut down, which ends every probe still running as cancelled (its sockets closed).
struct DrainService: Service {
    let hub: ProbeHub
    let runtime: ProbeRuntime
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        await hub.beginDraining()
        let busy = await hub.busy
        logger.info("shutting down: \(busy) probe(s) in flight, cancelled after \(Int(ATSServer.drainSeconds)) s")
        let runtime = self.runtime, hub = self.hub
        Task {
            let deadline = ContinuousClock.now.advanced(by: .seconds(ATSServer.drainSeconds))
            while await hub.busy > 0, ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(50))
            }
            if await hub.busy > 0 { try? await runtime.shutdown() }
        }
    }
}

/// SIGHUP: the config file read again; a bad one is logged and the running config kept.
struct ReloadService: Service {
    let hub: ProbeHub
    let path: String?
    let overrides: @Sendable (inout ServeConfiguration) -> Void
    let listen: ServeConfiguration.ListenAddress
    let logger: Logger

    func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sighup)
        for await _ in signals.cancelOnGracefulShutdown() {
            guard let path else {
                logger.info("SIGHUP: no --config to reload")
                continue
            }
            do {
                var configuration = try ServeConfiguration.load(path: path)
                overrides(&configuration)
                if configuration.listen != listen {
                    logger.warning("reload: listen stays \(listen) until restarted")
                }
                await hub.reload(ProbeHub.Settings(configuration))
                logger.info("reloaded \(UntrustedText.escape(path, limit: 300))")
            } catch {
                logger.error("reload failed, the running config is kept: \(error.description)")
            }
        }
    }
}

/// One log line per request: method, path and query (escaped), status, milliseconds; and the
/// request's series.
struct RequestLog<Context: RequestContext>: RouterMiddleware {
    let logger: Logger
    let metrics: ServeMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        let response: Response
        do {
            let hasBody = (request.headers[.contentLength].map { $0 != "0" } ?? false) || request.headers[.transferEncoding] != nil
            if request.uri.string.utf8.count > ATSServer.maximumURIBytes {
                response = Routes.text("the request target is longer than \(ATSServer.maximumURIBytes) bytes\n", status: .uriTooLong)
            } else if hasBody {
                response = Routes.text("serve takes no request body\n", status: .contentTooLarge)
            } else {
                response = try await next(request, context)
            }
        } catch let error as HTTPResponseError {
            log(request, status: error.status.code, started: started)
            throw error
        }
        log(request, status: response.status.code, started: started)
        return response
    }

    private func log(_ request: Request, status: Int, started: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - started
        metrics.request(path: request.uri.path, status: status, duration: elapsed)
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        let tenths = Int((milliseconds * 10).rounded())
        logger.info("\(request.method.rawValue) \(UntrustedText.escape(request.uri.string, limit: 300)) \(status) \(tenths / 10).\(tenths % 10) ms")
    }
}
