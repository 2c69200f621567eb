import ArgumentParser
import ATSFiles
import ATSPolicy
import TextSupport

/// `--rules`, one definition for every command that takes it: its help (each set with the
/// releases it covers, so `--help` and the man page generated from it show the ranges), its
/// completions, and its reading (`RuleSet.resolve`: a set's id, or a release resolved to the set
/// that covers it, with a one-line notice on stderr for an id whose meaning changed).
enum RulesOption {
    static func help(_ lead: String, all: Bool = false) -> ArgumentHelp {
        ArgumentHelp("\(lead): a release (ios16, ios17.2, macos14: the set that covers it) or a set: \(RuleSet.idsWithReleases). "
                     + "Default: \(RuleSet.current.id) (a current iPhone or Mac)."
                     + (all ? " diagnose also takes 'all': every rule set, side by side." : ""),
                     valueName: "release|set")
    }

    static func completions(all: Bool = false) -> CompletionKind {
        .list(RuleSet.inReleaseOrder.map(\.id) + (all ? ["all"] : []))
    }

    /// The set `text` names; a one-line error (exit 64) when it names none.
    static func resolve(_ text: String) throws -> RuleSet {
        guard let (set, notice) = RuleSet.resolve(text) else {
            throw InputError(.badArgument, "unknown rule set or release '\(UntrustedText.escape(text, limit: 60))' "
                             + "(a release such as ios16 or macos14, or one of \(RuleSet.idsWithReleases))")
        }
        if let notice { FileStream.standardError.write(notice + "\n") }
        return set
    }
}
