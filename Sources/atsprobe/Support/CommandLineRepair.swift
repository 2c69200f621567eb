import ArgumentParser
import TextSupport
import TLSFacts

/// What the command line is turned into before argument-parser sees it, so that people coming
/// from nscurl and curl are understood or told the nearest right spelling:
/// - `--ats-diagnostics` anywhere names `diagnose` (nscurl's spelling);
/// - `--color` before the subcommand moves after it (dropped for commands that colour nothing);
/// - an unknown subcommand (also after `help`) or long option gets "did you mean" and exit 64.
/// Command and option names come from argument-parser's own model (the commands' configurations
/// and help), so they never drift from what the parser accepts.
enum CommandLineRepair {
    enum Outcome: Equatable {
        case run([String])
        /// A one-line message; exit 64.
        case usage(String)
    }

    /// argument-parser's own entry points (shell completions, the man page's help dump): passed
    /// through untouched, whatever follows them.
    static let parserEntryPoints: Set<String> = ["--generate-completion-script", "--experimental-dump-help",
                                                 "--experimental-complete"]

    static func repair(_ arguments: [String]) -> Outcome {
        var args = arguments
        if args.contains(where: { arg in parserEntryPoints.contains { arg == $0 || arg.hasPrefix($0 + "=") } }) {
            return .run(args)
        }
        let end = args.firstIndex(of: "--") ?? args.count
        if let index = args[..<end].firstIndex(of: "--ats-diagnostics") {
            args.remove(at: index)
            args.insert("diagnose", at: 0)
        }

        // Options before the subcommand: --color is global; anything else unknown gets a suggestion.
        var color: [String] = []
        var index = 0
        while index < args.count, args[index].hasPrefix("-"), args[index] != "--" {
            let arg = args[index]
            if arg == "--color" {
                // A bare --color would take the subcommand as its value (issue 25).
                guard index + 1 < args.count, ColorChoice(rawValue: args[index + 1]) != nil else {
                    return .usage("--color needs a value: auto, always or never (e.g. --color never)")
                }
                color = [arg, args[index + 1]]
                args.removeSubrange(index...(index + 1))
                continue
            }
            if arg.hasPrefix("--color=") {
                color = [arg]
                args.remove(at: index)
                continue
            }
            if arg.hasPrefix("--"), let message = unknownOption(arg, in: ATSProbeCommand.self, path: [], extra: ["--ats-diagnostics"]) {
                return .usage(message)
            }
            // A short option before the subcommand (`atsprobe -v diagnose x`): the root takes
            // only -h; say where it goes (issue 25).
            if !arg.hasPrefix("--"), arg != "-h" {
                let next = args[(index + 1)...].first { !$0.hasPrefix("-") }
                let command = next.flatMap { word -> String? in
                    if case .success(let found) = resolve([word], stopAtLeaf: true) { return found.1.first }
                    return nil
                }
                let example = command.map { "'atsprobe \($0) \(shown(arg)) ...'" } ?? "'atsprobe COMMAND \(shown(arg)) ...'"
                return .usage("option '\(shown(arg))' goes after the command: \(example)")
            }
            index += 1
        }
        guard index < args.count, args[index] != "--" else { return .run(args) }

        // `help WORDS`: the words must name a command.
        if args[index] == "help" {
            let words = args[(index + 1)...].prefix { !$0.hasPrefix("-") }
            if case .failure(let message) = resolve(Array(words)) { return .usage(message) }
            return .run(args)
        }

        // The subcommand path: `diagnose`, `plist lint`.
        let words = args[index...].prefix { !$0.hasPrefix("-") }
        let command: ParsableCommand.Type
        let path: [String]
        switch resolve(Array(words), stopAtLeaf: true) {
        case .failure(let message): return .usage(message)
        case .success(let found): (command, path) = found
        }
        let afterPath = index + path.count
        let options = longOptions(of: command)
        var stop = args.firstIndex(of: "--") ?? args.count
        for arg in args[min(afterPath, stop)..<stop] where arg.hasPrefix("--") {
            if let message = unknownOption(arg, in: command, path: path, extra: []) { return .usage(message) }
        }
        // `--timeout -1`: argument-parser reads "-1" as an option and answers with its usage
        // text; joined as `--timeout=-1`, the command's own check names the value (exit 64).
        var position = min(afterPath, stop)
        while position + 1 < stop {
            if args[position].hasPrefix("--"), !args[position].contains("="), isNegativeNumber(args[position + 1]) {
                args[position] += "=" + args[position + 1]
                args.remove(at: position + 1)
                stop -= 1
            }
            position += 1
        }
        // A URL with its scheme mistyped (`http//host`, `https:/host`, `htps://host`).
        for arg in args[min(afterPath, stop)..<stop] where !arg.hasPrefix("-") {
            if let meant = repairedURL(arg) {
                return .usage("'\(shown(arg))' is not a URL; did you mean '\(shown(meant))'?")
            }
        }
        if !color.isEmpty && options.contains("--color") {
            args.insert(contentsOf: color, at: afterPath)
        }
        return .run(args)
    }

    enum Resolution {
        case success((ParsableCommand.Type, [String]))
        case failure(String)
    }

    /// Follows `words` down the command tree. With `stopAtLeaf`, words after a command without
    /// subcommands are its arguments.
    static func resolve(_ words: [String], stopAtLeaf: Bool = false) -> Resolution {
        var command: ParsableCommand.Type = ATSProbeCommand.self
        var path: [String] = []
        for word in words {
            let children = command.configuration.subcommands
            if children.isEmpty {
                if stopAtLeaf { break }
                return .failure("'atsprobe \(path.joined(separator: " "))' has no subcommand '\(shown(word))'")
            }
            var names: [String] = []
            var found: ParsableCommand.Type?
            for child in children {
                let name = commandName(child)
                names.append(name)
                if name == word { found = child }
            }
            guard let child = found else {
                if path.isEmpty, let hint = rootHint(word) { return .failure(hint) }
                let place = path.isEmpty ? "atsprobe" : "atsprobe \(path.joined(separator: " "))"
                var message = "unknown command '\(shown(word))' for '\(place)'"
                if let near = nearest(word, in: names) { message += "; did you mean '\(near)'?" }
                return .failure(message + " (commands: \(names.joined(separator: ", ")))")
            }
            command = child
            path.append(word)
        }
        return .success((command, path))
    }

    /// What a word in the command's place most likely meant: `atsprobe version` is `--version`,
    /// `atsprobe example.com:8443` (a target, not a command) is `diagnose` (issue 25).
    static func rootHint(_ word: String) -> String? {
        if word == "version" { return "unknown command 'version' for 'atsprobe'; did you mean 'atsprobe --version'?" }
        let looksLikeTarget = word.contains(".") || word.contains(":") || word.contains("/")
        guard looksLikeTarget else { return nil }
        let target = repairedURL(word) ?? word
        return "'\(shown(word))' is not a command; to test a server: 'atsprobe diagnose \(shown(target))' (or probe, pins, audit)"
    }

    /// "-1", "-0.5": a negative number given as an option's value.
    static func isNegativeNumber(_ arg: String) -> Bool {
        arg.count > 1 && arg.hasPrefix("-") && Double(arg.dropFirst()) != nil
    }

    /// The URL a mistyped one most likely meant, or nil when `text` is not a mistyped URL:
    /// a scheme without its colon (`http//host`), with one slash (`https:/host`), or a scheme
    /// one or two edits from http or https (`htps://host`, `htttp://host`).
    static func repairedURL(_ text: String) -> String? {
        let lower = text.lowercased()
        for scheme in ["https", "http"] {
            if lower.hasPrefix(scheme + "//") { return scheme + "://" + text.dropFirst(scheme.count + 2) }
            if lower.hasPrefix(scheme + ":/"), !lower.hasPrefix(scheme + "://") { return scheme + "://" + text.dropFirst(scheme.count + 2) }
        }
        if let separator = text.firstRange(of: "://") {
            let scheme = text[..<separator.lowerBound].lowercased()
            guard scheme != "http", scheme != "https", !scheme.isEmpty, scheme.allSatisfy({ $0.isLetter }) else { return nil }
            let rest = text[separator.upperBound...]
            let near = ["https", "http"].map { ($0, EditDistance.between(scheme, $0)) }.min { $0.1 < $1.1 }
            // Two edits only for longer words: "ftp" is a scheme of its own, not a typo of http.
            if let near, near.1 == 1 || (near.1 == 2 && scheme.count >= 4) { return near.0 + "://" + rest }
        }
        return nil
    }

    static func commandName(_ command: ParsableCommand.Type) -> String {
        command._commandName
    }

    /// A message when `arg` is a long option `command` does not know and a near name exists;
    /// nil otherwise (argument-parser then reports it as usual).
    static func unknownOption(_ arg: String, in command: ParsableCommand.Type, path: [String], extra: [String]) -> String? {
        let name = String(arg.split(separator: "=", maxSplits: 1).first ?? "")
        let known = longOptions(of: command) + extra
        guard name.count > 2, !known.contains(name), let near = nearest(name, in: known) else { return nil }
        let place = (["atsprobe"] + path).joined(separator: " ")
        return "unknown option '\(shown(name))' for '\(place)'; did you mean '\(near)'?"
    }

    /// Every long option of `command`, read from the help argument-parser generates for it.
    static func longOptions(of command: ParsableCommand.Type) -> [String] {
        let help = ATSProbeCommand.helpMessage(for: command, includeHidden: true, columns: 10_000)
        var names: Set<String> = ["--help", "--version"]
        var current = ""
        for ch in help + " " {
            if ch.isLetter || ch.isNumber || ch == "-" {
                current.append(ch)
            } else {
                if current.hasPrefix("--"), current.count > 2 {
                    names.insert(String(current.reversed().drop { $0 == "-" }.reversed()))
                }
                current = ""
            }
        }
        return names.sorted()
    }

    /// The closest name by edit distance, when close enough to be a typo (or a unique prefix).
    static func nearest(_ word: String, in names: [String]) -> String? {
        let prefixed = names.filter { $0.hasPrefix(word) }
        if prefixed.count == 1 { return prefixed[0] }
        let scored = names.map { ($0, EditDistance.between(word, $0)) }.sorted { ($0.1, $0.0) < ($1.1, $1.0) }
        guard let best = scored.first else { return nil }
        let allowed = max(1, min(3, word.count / 3))
        return best.1 <= allowed ? best.0 : nil
    }

    private static func shown(_ text: String) -> String {
        UntrustedText.escape(text, limit: 60)
    }
}
