import Foundation

/// Metrics text read as Prometheus' own clients read it: prometheus_client's parsers (Debian's
/// python3-prometheus-client, through /usr/bin/python3, the interpreter `.ci/run` installs it
/// for), the OpenMetrics 1.0 one for `openmetrics` (strict: `# EOF`, UNIT against the name, a
/// counter's `_total`), the text format's for `prometheus`; and, since neither refuses a series
/// written twice (node_exporter's textfile collector does, dropping it), a check that no series
/// (name and label set) appears twice.
package enum ExpositionCheck {
    package enum Dialect: String, Sendable { case openMetrics = "openmetrics", prometheus }

    package enum Outcome: Sendable, Equatable {
        /// Parsed, with this many distinct series.
        case valid(series: Int)
        case invalid(String)
        /// The interpreter or the module is missing (the message says which); the caller asks
        /// `RequiredTool.condition`, which fails under CI.
        case unavailable(String)
    }

    package static let python = RequiredTool.python

    static let script = """
        import sys
        try:
            if sys.argv[1] == "openmetrics":
                from prometheus_client.openmetrics.parser import text_string_to_metric_families
            else:
                from prometheus_client.parser import text_string_to_metric_families
        except ImportError as error:
            print("unavailable: %s" % error)
            sys.exit(3)
        seen = set()
        try:
            for family in text_string_to_metric_families(sys.stdin.read()):
                for sample in family.samples:
                    key = (sample.name, tuple(sorted(sample.labels.items())))
                    if key in seen:
                        print("duplicate series: %s %s" % key)
                        sys.exit(1)
                    seen.add(key)
        except Exception as error:
            print("invalid: %s" % error)
            sys.exit(1)
        print(len(seen))
        """

    package static func check(_ text: String, dialect: Dialect) async throws -> Outcome {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            return .unavailable("no \(python) (apt-get install python3 python3-prometheus-client)")
        }
        let result = try await ChildProcess.run(python, ["-c", script, dialect.rawValue], stdin: text, timeout: 60)
        let output = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        switch result.status {
        case 0: return Int(output).map { .valid(series: $0) } ?? .invalid("unexpected output: \(output)")
        case 3: return .unavailable("\(output) (apt-get install python3-prometheus-client)")
        default: return .invalid(output.isEmpty ? result.stderr : output)
        }
    }
}
