import ArgumentParser
import ATSEngine
import ATSFiles
import ATSReport
import ATSServe
import TextSupport

extension ATSProbeCommand {
    /// `atsprobe serve`: the exporter and web service (docs/serve.md). The server is ATSServe's;
    /// this reads the options and the config and hands over the command line's runtime.
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Serve verdicts and forecasts over HTTP: a Prometheus multi-target exporter (/probe?target=URL), JSON, HTML reports.",
            discussion: "Listens on 127.0.0.1:9155 unless --listen or the config says otherwise. Nothing may be probed until allowed (the config's allow, or --allow). SIGHUP reloads the config; SIGTERM drains and exits 0. Exit codes: 0 after SIGTERM or SIGINT; 64 a bad config or option; 70 the address cannot be bound. See docs/serve.md."
        )

        @Option(name: .long, help: ArgumentHelp("YAML config: listen, cache_ttl, max_in_flight, allow, modules (docs/serve.md).", valueName: "file"), completion: .file(extensions: ["yml", "yaml"]))
        var config: String?

        @Option(name: .long, help: ArgumentHelp("Address to listen on (HOST:PORT; port 0: any free port); replaces the config's listen.", valueName: "host:port"))
        var listen: String?

        @Option(name: .long, help: ArgumentHelp("A host pattern (example.com, *.example.com) or network (10.0.0.0/8, 127.0.0.1) that may be probed, added to the config's allow; repeatable.", valueName: "pattern"))
        var allow: [String] = []

        func run() async throws {
            try await ATSProbeCommand.guarded {
                var configuration = ServeConfiguration(modules: ["default": ServeConfiguration.Module(ruleSet: .current)])
                if let config {
                    do throws(ServeConfiguration.LoadError) {
                        configuration = try ServeConfiguration.load(path: config)
                    } catch {
                        throw InputError(error.description)
                    }
                }
                let listenAddress = try listen.map { text in
                    guard let address = ServeConfiguration.ListenAddress(parsing: text) else {
                        throw InputError("--listen '\(UntrustedText.escape(text, limit: 80))' is not HOST:PORT (e.g. 127.0.0.1:9155, [::1]:9155)")
                    }
                    return address
                }
                var extra = AllowList()
                for entry in allow {
                    do throws(AllowList.EntryError) { try extra.add(entry) } catch { throw InputError("--allow \(error.description)") }
                }
                let allowed = allow
                // The command line's options win over the config, at start-up and on every reload.
                let overrides: @Sendable (inout ServeConfiguration) -> Void = { configuration in
                    if let listenAddress { configuration.listen = listenAddress }
                    for entry in allowed { try? configuration.allow.add(entry) }
                }
                overrides(&configuration)
                let environment = ServeEnvironment(runtime: try CommandRuntime.runtime) { context, ruleSet in RunInfo(context: context, ruleSet: ruleSet) }
                do {
                    try await ATSServer.run(configuration: configuration, configPath: config, overrides: overrides, environment: environment)
                } catch {
                    Diagnostics.warn("cannot serve on \(configuration.listen): \(UntrustedText.escape(String(describing: error), limit: 300))")
                    try? await CommandRuntime.runtime.shutdown()
                    return .internalError
                }
                try? await CommandRuntime.runtime.shutdown()
                return .clear
            }
        }
    }
}
