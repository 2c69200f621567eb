import ATSFiles
import ATSReport
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import ATSTrust
import TextSupport

/// `--format` for one command: parses only the formats of `Formats` (the command's result's
/// registry, `RenderedResult.outputs`, ATSReport), so help, completions, the man page and the
/// error for a wrong value name only those, and a format the result does not render is refused
/// while parsing (64), never at run time.
struct FormatChoice<Formats: FormatSet>: ExpressibleByArgument, Sendable {
    let format: OutputFormat

    init(_ format: OutputFormat) { self.format = format }

    init?(argument: String) {
        guard let format = OutputFormat(rawValue: argument.lowercased()), Formats.formats.contains(format) else { return nil }
        self.format = format
    }

    var defaultValueDescription: String { format.rawValue }
    static var allValueStrings: [String] { Formats.formats.map(\.rawValue) }
    /// The shells complete exactly the formats this command writes.
    static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }
}

/// Output choices shared by every command; `Formats` are the ones the command's result renders.
struct OutputOptions<Formats: FormatSet>: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Output format; the values this command writes are listed.", valueName: "format"))
    var format = FormatChoice<Formats>(.text)

    // Hidden from help and completions where the command writes no JSON (report): help lists
    // only what the command accepts (issue 25).
    @Flag(name: .long, help: ArgumentHelp("Shorthand for --format json.", visibility: Formats.formats.contains(.json) ? .default : .private))
    var json = false

    @Option(name: .long, help: ArgumentHelp("Write the result to FILE instead of standard output.", valueName: "file"), completion: .file())
    var output: String?

    var effectiveFormat: OutputFormat { json ? .json : format.format }

    func validate() throws {
        if json && !Formats.formats.contains(.json) {
            throw ValidationError("--json: this command writes \(Formats.formats.map(\.rawValue).joined(separator: " or ")) only")
        }
    }
}

/// `--sarif-category NAME` (every command that writes SARIF): `runs[].automationDetails.id`,
/// which GitHub code scanning reads as the upload's category, so uploads of different commands
/// (a lint and an audit) keep their own alerts (docs/ci.md, docs/lint.md).
struct SARIFOptions: ParsableArguments {
    @Option(name: .customLong("sarif-category"), help: ArgumentHelp("SARIF: the category code scanning files the results under (runs[].automationDetails.id); distinct per workflow step.", valueName: "name"))
    var sarifCategory: String?

    /// The category, checked: 1-100 of letters, digits and . _ - / (not ending in /); only with --format sarif.
    func category(format: OutputFormat) throws -> String? {
        guard let name = sarifCategory else { return nil }
        guard format == .sarif else { throw InputError(.badArgument, "--sarif-category goes with --format sarif") }
        let allowed = name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._-/".contains($0)) }
        guard allowed, (1...100).contains(name.count), !name.hasSuffix("/"), !name.hasPrefix("/") else {
            throw InputError(.badArgument, "--sarif-category '\(UntrustedText.escape(name, limit: 100))': give 1 to 100 letters, digits, '.', '_', '-' or '/' (not first or last), e.g. atsprobe-audit")
        }
        return name
    }
}

/// `--color`, for the commands whose text output has something to colour (verdict words).
/// Also accepted before the subcommand (`atsprobe --color never diagnose ...`, see Main).
struct ColorOptions: ParsableArguments {
    @Option(name: .long, help: "Colour the verdict words: auto, always or never (NO_COLOR is honoured by auto).")
    var color: ColorChoice = .auto

    /// Colour only for people: text format, standard output a terminal, no --output file,
    /// NO_COLOR unset (https://no-color.org), unless --color always/never says otherwise.
    func palette(format: OutputFormat, path: String?) -> Palette {
        switch color {
        case .always: return Palette(enabled: format == .text)
        case .never: return Palette(enabled: false)
        case .auto:
            let noColor = ProcessInfo.processInfo.environment["NO_COLOR"].map { !$0.isEmpty } ?? false
            return Palette(enabled: format == .text && path == nil && !noColor && isatty(STDOUT_FILENO) == 1)
        }
    }
}

extension TrustStoreChoice: ExpressibleByArgument {}

enum ColorChoice: String, ExpressibleByArgument, CaseIterable { case auto, always, never }

/// Options shared by every command that connects.
struct ConnectionOptions: ParsableArguments {
    @Option(name: .customLong("ca-file"), help: ArgumentHelp("PEM bundle of extra anchors, treated as user-installed roots.", valueName: "file"), completion: .file())
    var caFile: String?

    @Option(name: .customLong("ca-dir"), help: ArgumentHelp("Directory of extra anchors (PEM), treated as user-installed roots.", valueName: "dir"), completion: .directory)
    var caDir: String?

    @Option(name: .customLong("trust-store"), help: "System roots to judge against: apple (Apple's root store, built in; the default) or system (this machine's OpenSSL store).")
    var trustStore: TrustStoreChoice = .apple

    @Flag(name: .customLong("no-aia"), help: "Do not fetch missing intermediates from caIssuers URLs (as watchOS, which has no network for trust).")
    var noAIA = false

    @Flag(name: .customLong("allow-private-fetch"), help: "Let caIssuers fetches reach loopback, link-local, private and other non-global addresses even when the target is not at one (refused by default: a server must not aim atsprobe at its own network).")
    var allowPrivateFetch = false

    @Option(name: .customLong("connect-to"), help: ArgumentHelp("As curl: connect to ADDR:PORT for HOST:PORT, keeping the name for SNI, Host and checks.", valueName: "host:port:addr:port"))
    var connectTo: [String] = []

    @Option(name: .long, help: ArgumentHelp("Deadline in seconds for each connection's connect, handshake and request.", valueName: "seconds"))
    var timeout: Double = 10

    @Option(name: .customLong("dns-servers"), help: ArgumentHelp("As curl: resolve names through these DNS servers instead of resolv.conf's.", valueName: "addr[:port][,...]"))
    var dnsServers: String?

    @Option(name: .long, help: ArgumentHelp("Judge certificates as of this instant: a date (2025-01-31, midnight UTC) or an RFC 3339 date-time (2025-01-31T12:00:00Z, seconds optional, Z or +HH:MM).", valueName: "date"))
    var at: String?

    @Option(name: .customLong("ct-log-list"), help: ArgumentHelp("Apple's CT log list (current_log_list.json from valid.apple.com) to judge SCTs against, instead of the built-in copy.", valueName: "file"),
            completion: .file(extensions: ["json"]))
    var ctLogList: String?
}
