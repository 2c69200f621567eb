import ATSReport
import ATSAdvice
import ATSApp
import ATSEngine
import ATSPolicy
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport
import TLSFacts

/// What the app report's formats (AppText, AppJSON, AppMarkdown, AppHTML) word alike.
extension AppReport {
    /// A generated property list for a terminal or a page: keys come from the app, so each line
    /// is escaped (control and bidi characters); tabs, which the escape would show as \x09,
    /// become four spaces first.
    package static func escapedLines(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { UntrustedText.escape(String($0).replacing("\t", with: "    "), limit: 4096) }.joined(separator: "\n")
    }

    /// The dictionary column of the Markdown and HTML reports: whose dictionary governs the
    /// bundle's loads (`borrowed` words the owner's name), the keys of its own, or the defaults.
    /// The formats differ only in how they escape a name and mark up a key.
    package func dictionaryCell(_ bundle: AppBundle, borrowed: (String) -> String, key: (String) -> String) -> String {
        if bundle.dictionaryOwner != bundle.path { return borrowed(name(bundle.dictionaryOwner)) }
        guard let ats = bundle.atsDictionary else { return "none (ATS defaults)" }
        return ats.isEmpty ? "empty" : ats.keys.sorted().map(key).joined(separator: ", ")
    }

    /// The items of "What no host needs", in report order: per bundle (given by its name) its
    /// tightening findings, then its entries no host falls under; each format words them.
    package func unneededItems(finding: (String, TighteningFinding) -> String, entry: (String, String) -> String) -> [String] {
        results.flatMap { result in
            let bundle = name(result.bundle.path)
            let unneeded = (result.tightening?.findings ?? []).filter { $0.kind != .insufficient }
            return unneeded.map { finding(bundle, $0) } + result.unusedEntries.map { entry(bundle, $0) }
        }
    }

    /// What a failing load needs, in one line: the entry the tightened dictionary adds, or
    /// why no dictionary helps (the server must change).
    package static func remedy(_ check: PlistTargetCheck) -> String {
        guard let report = check.diagnostics else {
            // An http:// load has no diagnostics: its own reasons say whether the host answered.
            if check.loads.flatMap(\.load.verdict.reasons).contains(where: { $0.layer == .connection }) {
                return "could not be reached over http://; nothing was measured"
            }
            return "an http:// load: NSExceptionAllowsInsecureHTTPLoads for the host (the tightened dictionary has it), or serve it over https"
        }
        if report.reachability == .unreachable { return "could not be reached; nothing was measured" }
        switch report.suggestion {
        case .none: return "default ATS passes: the app's dictionary is what breaks it (see the governing entry)"
        case .exception(let domain, _, _): return "the tightened dictionary adds the entry for \(UntrustedText.escape(domain))"
        case .impossible(let reason): return "no dictionary makes it load (\(UntrustedText.escape(reason))): only a server change can fix it"
        }
    }
}
