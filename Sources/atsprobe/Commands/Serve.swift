import ArgumentParser
import CommandRuns

extension ATSProbeCommand {
    /// `atsprobe serve`: the exporter and web service (docs/serve.md). The server is ATSServe's;
    /// this reads the options and the config and hands over the command line's runtime.
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "serve",
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
            try await ATSProbeCommand.guarded { try await ServeRun.run(config: config, listen: listen, allow: allow, warn: Diagnostics.warn) }
        }
    }
}
