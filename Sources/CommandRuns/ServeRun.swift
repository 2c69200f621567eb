import ATSEngine
import ATSFiles
import ATSReport
import ATSServe
import TextSupport

/// `atsprobe serve` once its options are parsed (docs/serve.md): the config read, the command
/// line's --listen and --allow laid over it (at start-up and on every reload), and ATSServe's
/// server on the command line's runtime until SIGTERM or SIGINT.
package enum ServeRun {
    package static func run(config: String?, listen: String?, allow: [String], warn: (String) -> Void) async throws -> ExitStatus {
        var configuration = ServeConfiguration(modules: ["default": ServeConfiguration.Module(ruleSet: .current)])
        if let config {
            do throws(ServeConfiguration.LoadError) {
                configuration = try ServeConfiguration.load(path: config)
            } catch {
                throw InputError(error.code == .unreadable ? .fileAccess : .badContents, error.description)
            }
        }
        let listenAddress = try listen.map { text in
            guard let address = ServeConfiguration.ListenAddress(parsing: text) else {
                throw InputError(.badArgument, "--listen '\(UntrustedText.escape(text, limit: 80))' is not HOST:PORT (e.g. 127.0.0.1:9155, [::1]:9155)")
            }
            return address
        }
        var extra = AllowList()
        for entry in allow {
            do throws(AllowList.EntryError) { try extra.add(entry) } catch { throw InputError(.badArgument, "--allow \(error.description)") }
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
            warn("cannot serve on \(configuration.listen): \(UntrustedText.escape(String(describing: error), limit: 300))")
            try? await CommandRuntime.runtime.shutdown()
            return .internalError
        }
        try? await CommandRuntime.runtime.shutdown()
        return .clear
    }
}
