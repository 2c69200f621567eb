import ATSPolicy
import ATSProbe
import ATSReport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport
import TLSFacts

/// serve's configuration (docs/serve.md, ../shared/docs/cli.md "serve"): where it listens, how
/// long a result is reused, how many probes run at once, which targets may be probed, and the
/// modules a scrape names. Read from YAML by `ServeConfiguration.load(path:)`; every value is
/// checked there, so a running server never meets a bad one.
package struct ServeConfiguration: Sendable {
    package var listen: ListenAddress
    /// Seconds a result is reused per target and module.
    package var cacheTTLSeconds: Int
    /// Probes (targets' diagnostics) at once; more wait for a slot.
    package var maxInFlight: Int
    package var allow: AllowList
    /// By name; `default` is used when a scrape names none.
    package var modules: [String: Module]

    package static let defaultListen = ListenAddress(host: "127.0.0.1", port: 9155)
    package static let defaultCacheTTLSeconds = 300
    package static let defaultMaxInFlight = 16
    package static let maximumInFlight = 1024
    /// The longest cache_ttl: a day (a verdict older than that is not what a scrape asks about).
    package static let maximumCacheTTLSeconds = 86_400

    package init(listen: ListenAddress = ServeConfiguration.defaultListen, cacheTTLSeconds: Int = ServeConfiguration.defaultCacheTTLSeconds,
                maxInFlight: Int = ServeConfiguration.defaultMaxInFlight, allow: AllowList = AllowList(),
                modules: [String: Module]) {
        self.listen = listen
        self.cacheTTLSeconds = cacheTTLSeconds
        self.maxInFlight = maxInFlight
        self.allow = allow
        self.modules = modules
    }

    /// `HOST:PORT` (`[v6]:PORT`).
    package struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
        package var host: String
        package var port: Int

        package init(host: String, port: Int) {
            self.host = host
            self.port = port
        }

        /// "127.0.0.1:9155", "[::1]:9155", "0.0.0.0:9155"; port 0 asks the system for a free one.
        package init?(parsing text: String) {
            let host: Substring, port: Substring
            if text.hasPrefix("[") {
                guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
                host = text[text.index(after: text.startIndex)..<close]
                port = text[text.index(close, offsetBy: 2)...]
                guard IPAddress(String(host), family: .v6) != nil else { return nil }
            } else {
                guard let colon = text.lastIndex(of: ":") else { return nil }
                host = text[..<colon]
                port = text[text.index(after: colon)...]
                guard !host.isEmpty, !host.contains(":") else { return nil }
                guard host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }) else { return nil }
            }
            guard !port.isEmpty, port.count <= 5, port.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(port), number <= 65_535 else { return nil }
            self.host = String(host)
            self.port = number
        }

        package var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    }

    /// How one kind of scrape judges: cli.md's `modules.NAME` keys.
    package struct Module: Sendable {
        package var ruleSet: RuleSet
        /// User-installed roots (PEM), as --ca-file.
        package var caFile: String?
        package var timeoutSeconds: Double = 10
        /// serve forecasts 90 days ahead unless the module says otherwise (docs/serve.md: an
        /// exporter's point is the warning before the change).
        package var forecastSeconds: Int? = 90 * 86_400
        package var connectTo: [ConnectToRule] = []
        package var dnsServers: DNSServerList?
        /// Added to every series of the module's scrapes, sorted by name: the same labels, and the
        /// same rules for them, as the command line's `--metrics-label` (ATSReport's `MetricsLabels`).
        package var labels = MetricsLabels()

        /// A module judging by `ruleSet`, every other key its default.
        package init(ruleSet: RuleSet) { self.ruleSet = ruleSet }

        /// A module the config leaves empty: the command line's defaults (`RuleSet.current`).
        static var commandLineDefaults: Module { Module(ruleSet: .current) }
    }

    /// A bad config: the file, the line and column of the value (or of the key, for a missing
    /// or unknown one), the key's path and what is wrong, on one line.
    package struct LoadError: Error, Sendable, CustomStringConvertible {
        /// What is wrong, for code: callers compare this, never `message`'s text.
        package enum Code: String, Sendable, Hashable, CaseIterable {
            /// The file could not be read, or is not UTF-8.
            case unreadable
            case notYAML
            /// A mapping, single value or list expected and something else found, or a key that is not a string.
            case wrongShape
            case duplicateKey
            case unknownKey
            /// A value or list past its bound.
            case tooLarge
            /// A value the key does not take.
            case badValue
        }

        package var code: Code
        package var file: String
        package var line: Int?
        package var column: Int?
        package var key: String?
        /// For people: what is wrong, after the file, line and key.
        package var message: String

        package var description: String {
            var text = UntrustedText.escape(file, limit: 300)
            if let line { text += ":\(line)" + (column.map { ":\($0)" } ?? "") }
            text += ": "
            if let key { text += UntrustedText.escape(key, limit: 200) + ": " }
            return text + message
        }
    }

    /// The largest config read: far beyond any hand-written one.
    package static let maximumFileBytes = 1 << 20

    /// Reads and checks the file at `path`.
    package static func load(path: String) throws(LoadError) -> ServeConfiguration {
        let bytes: [UInt8]
        do {
            bytes = try BoundedFile.read(path, limit: maximumFileBytes, allowPipes: false)
        } catch {
            throw LoadError(code: .unreadable, file: path, message: "cannot read the config: \(error.reason)")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw LoadError(code: .unreadable, file: path, message: "the config is not UTF-8") }
        return try parse(text, file: path)
    }

    /// Checks `text`, a YAML config named `file` in errors.
    package static func parse(_ text: String, file: String) throws(LoadError) -> ServeConfiguration {
        let root: ConfigYAML.Node?
        do throws(ConfigYAML.SyntaxError) {
            root = try ConfigYAML.parse(text)
        } catch {
            throw LoadError(code: .notYAML, file: file, line: error.mark.line, column: error.mark.column, message: "not valid YAML: \(error.message)")
        }
        var reader = Reader(file: file)
        guard let root else { return ServeConfiguration(modules: ["default": .commandLineDefaults]) }
        return try reader.configuration(root)
    }
}

/// Walks the composed YAML, naming the key path and the value's line in every error.
private struct Reader {
    let file: String

    func fail(_ node: ConfigYAML.Node?, _ key: String, _ code: ServeConfiguration.LoadError.Code,
              _ message: String) -> ServeConfiguration.LoadError {
        let mark = node?.mark
        return ServeConfiguration.LoadError(code: code, file: file, line: mark?.line, column: mark?.column, key: key, message: message)
    }

    /// The mapping's keys as strings, each once; an unknown one is an error naming it.
    func entries(_ node: ConfigYAML.Node, _ path: String, known: Set<String>?) throws(ServeConfiguration.LoadError) -> [(String, ConfigYAML.Node, ConfigYAML.Node)] {
        guard let mapping = node.mapping else { throw fail(node, path.isEmpty ? "(top level)" : path, .wrongShape, "expected a mapping of keys to values") }
        var seen = Set<String>()
        var out: [(String, ConfigYAML.Node, ConfigYAML.Node)] = []
        for (key, value) in mapping {
            guard let name = key.scalar?.string else { throw fail(key, path, .wrongShape, "a key must be a plain string") }
            let full = path.isEmpty ? name : "\(path).\(name)"
            guard seen.insert(name).inserted else { throw fail(key, full, .duplicateKey, "the key is given twice") }
            if let known, !known.contains(name) {
                let choices = known.sorted().joined(separator: ", ")
                throw fail(key, full, .unknownKey, "unknown key (known here: \(choices))")
            }
            out.append((name, key, value))
        }
        return out
    }

    func string(_ node: ConfigYAML.Node, _ key: String) throws(ServeConfiguration.LoadError) -> String {
        guard let scalar = node.scalar else { throw fail(node, key, .wrongShape, "expected a single value") }
        guard scalar.string.utf8.count <= 4096 else { throw fail(node, key, .tooLarge, "the value is longer than 4096 bytes") }
        return scalar.string
    }

    func strings(_ node: ConfigYAML.Node, _ key: String) throws(ServeConfiguration.LoadError) -> [(String, ConfigYAML.Node)] {
        if node.isNull { return [] }
        guard let sequence = node.sequence else { throw fail(node, key, .wrongShape, "expected a list") }
        guard sequence.count <= 10_000 else { throw fail(node, key, .tooLarge, "more than 10000 entries") }
        var out: [(String, ConfigYAML.Node)] = []
        for item in sequence { out.append((try string(item, key), item)) }
        return out
    }

    func duration(_ node: ConfigYAML.Node, _ key: String, maximum: Int) throws(ServeConfiguration.LoadError) -> Int {
        let text = try string(node, key)
        guard let seconds = DurationText.seconds(text, maximum: maximum) else {
            throw fail(node, key, .badValue, "'\(UntrustedText.escape(text, limit: 40))' is not a duration between 1s and \(maximum)s (e.g. 30s, 5m, 90d)")
        }
        return seconds
    }

    func configuration(_ root: ConfigYAML.Node) throws(ServeConfiguration.LoadError) -> ServeConfiguration {
        var config = ServeConfiguration(modules: [:])
        var sawModules = false
        for (name, _, value) in try entries(root, "", known: ["listen", "cache_ttl", "max_in_flight", "allow", "modules"]) {
            switch name {
            case "listen":
                let text = try string(value, name)
                guard let address = ServeConfiguration.ListenAddress(parsing: text) else {
                    throw fail(value, name, .badValue, "'\(UntrustedText.escape(text, limit: 80))' is not HOST:PORT (e.g. 127.0.0.1:9155, [::1]:9155, 0.0.0.0:9155)")
                }
                config.listen = address
            case "cache_ttl":
                config.cacheTTLSeconds = try duration(value, name, maximum: ServeConfiguration.maximumCacheTTLSeconds)
            case "max_in_flight":
                let text = try string(value, name)
                guard text.allSatisfy({ $0.isASCII && $0.isNumber }), let count = Int(text), (1...ServeConfiguration.maximumInFlight).contains(count) else {
                    throw fail(value, name, .badValue, "'\(UntrustedText.escape(text, limit: 40))' is not a whole number between 1 and \(ServeConfiguration.maximumInFlight)")
                }
                config.maxInFlight = count
            case "allow":
                var list = AllowList()
                for (entry, node) in try strings(value, name) {
                    do throws(AllowList.EntryError) {
                        try list.add(entry)
                    } catch {
                        throw fail(node, name, .badValue, error.description)
                    }
                }
                config.allow = list
            case "modules":
                sawModules = true
                for (moduleName, key, moduleNode) in try entries(value, name, known: nil) {
                    guard !moduleName.isEmpty, moduleName.count <= 64,
                          moduleName.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == ".") }) else {
                        throw fail(key, "modules", .badValue, "'\(UntrustedText.escape(moduleName, limit: 64))' is not a module name (letters, digits, _ - ., at most 64)")
                    }
                    config.modules[moduleName] = try module(moduleNode, "modules.\(moduleName)")
                }
            default:
                break
            }
        }
        if !sawModules { config.modules = ["default": .commandLineDefaults] }
        return config
    }

    func module(_ node: ConfigYAML.Node, _ path: String) throws(ServeConfiguration.LoadError) -> ServeConfiguration.Module {
        var module = ServeConfiguration.Module.commandLineDefaults
        // An empty module (`default:` alone) takes every default.
        if node.isNull { return module }
        let known: Set<String> = ["rules", "ca_file", "timeout", "forecast", "connect_to", "dns_servers", "labels"]
        for (name, _, value) in try entries(node, path, known: known) {
            let key = "\(path).\(name)"
            switch name {
            case "rules":
                let text = try string(value, key)
                // As `--rules`: a set's id or a release, resolved to the set that covers it.
                guard let resolved = RuleSet.resolve(text) else {
                    throw fail(value, key, .badValue, "'\(UntrustedText.escape(text, limit: 60))' is neither a rule set nor a release one covers (\(RuleSet.idsWithReleases))")
                }
                module.ruleSet = resolved.ruleSet
            case "ca_file":
                let text = try string(value, key)
                guard !text.isEmpty else { throw fail(value, key, .badValue, "give a path to a PEM file") }
                // Read now, so a missing or unreadable file is a start-up error, not a failed scrape.
                do {
                    _ = try BoundedFile.read(text, limit: 16 << 20, allowPipes: false)
                } catch {
                    throw fail(value, key, .badValue, "cannot read '\(UntrustedText.escape(text, limit: 300))': \(error.reason)")
                }
                module.caFile = text
            case "timeout":
                module.timeoutSeconds = Double(try duration(value, key, maximum: 600))
            case "forecast":
                let text = try string(value, key)
                if ["off", "none", "0"].contains(text.lowercased()) {
                    module.forecastSeconds = nil
                } else {
                    module.forecastSeconds = try duration(value, key, maximum: 3_650 * 86_400)
                }
            case "connect_to":
                module.connectTo = []
                for (rule, item) in try strings(value, key) {
                    do throws(ConnectToRuleError) {
                        module.connectTo.append(try ConnectToRule(parsing: rule))
                    } catch {
                        throw fail(item, key, .badValue, error.description)
                    }
                }
            case "dns_servers":
                let list = try strings(value, key).map(\.0)
                guard !list.isEmpty else { module.dnsServers = nil; continue }
                do throws(DNSServerListError) {
                    module.dnsServers = try DNSServerList(parsing: list.joined(separator: ","))
                } catch {
                    throw fail(value, key, .badValue, error.description)
                }
            case "labels":
                var pairs: [String] = []
                for (label, labelKey, labelValue) in try entries(value, key, known: nil).sorted(by: { $0.0 < $1.0 }) {
                    // Prometheus gives a scraped series these itself (the job, the instance: the
                    // relabelled target) and serve the module; the rest are `--metrics-label`'s rules.
                    guard !["job", "instance", "module"].contains(label) else {
                        throw fail(labelKey, "\(key).\(label)", .badValue, "'\(label)' is a label Prometheus or serve sets itself")
                    }
                    let text = try string(labelValue, "\(key).\(label)")
                    do throws(MetricsLabelError) {
                        _ = try MetricsLabels(parsing: ["\(label)=\(text)"], option: "label")
                    } catch {
                        throw fail(labelKey, "\(key).\(label)", .badValue, error.message)
                    }
                    pairs.append("\(label)=\(text)")
                }
                do throws(MetricsLabelError) {
                    module.labels = try MetricsLabels(parsing: pairs, option: key)
                } catch {
                    throw fail(value, key, .badValue, error.message)
                }
            default:
                break
            }
        }
        return module
    }
}

