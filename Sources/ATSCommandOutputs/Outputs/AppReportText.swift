import ATSReport
import ATSAdvice
import ATSApp
import ATSPolicy
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport
import TLSFacts

/// What the app report's formats (AppText, AppJSON, AppMarkdown, AppHTML) word alike, read from
/// the document's render-only fields.
extension AppJSON {
    /// Every host checked, in bundle order.
    package var hostChecks: [HostCheck] { results.flatMap(\.checks) }

    /// The bundle's name for people: "Demo.app" for the app itself.
    package func name(_ path: String) -> String { path.isEmpty ? inventory.appName : path }

    /// The keys a failing load needs that its dictionary lacks (`insufficient` findings).
    package var neededFindings: [(result: DictionaryResult, finding: TighteningFinding)] {
        results.flatMap { result in (result.tightening?.findings ?? []).filter { $0.kind == .insufficient }.map { (result, $0) } }
    }

    /// How many items "What no host needs" lists: the tightening findings that say a key can go
    /// or be narrowed, and the entries no host falls under. An `insufficient` finding is a key a
    /// host does need (its load fails without it), so it is reported with the failing loads instead.
    package var unneededCount: Int {
        results.map { result in
            (result.tightening?.findings ?? []).filter { $0.kind != .insufficient }.count + result.unusedEntries.count
        }.reduce(0, +)
    }

    /// The loads that fail or do not connect: "Will fail" in every format.
    package var failing: [HostCheck] { hostChecks.filter { !$0.check.passes || $0.check.unreachable } }

    /// The dictionaries the live check tightens, with the tightened property list, in bundle order.
    package var tightenedDictionaries: [(result: DictionaryResult, plist: String)] {
        results.compactMap { result in
            guard let tightening = result.tightening, !tightening.isTight, let plist = result.tightenedPlist else { return nil }
            return (result, plist)
        }
    }

    /// The hosts that have server advice (`serverAdvice`), in check order.
    package var hostsWithServerAdvice: [(item: HostCheck, advice: HostAdvice)] {
        hostChecks.compactMap { item in Self.serverAdvice(item.check).map { (item, $0) } }
    }

    /// Why a failing load fails, as "Will fail" says it in every format (each escapes it): the
    /// first reason of its loads; nil when there is none (the host could not be reached).
    package static func firstReason(_ check: PlistCheckJSON.TargetJSON) -> String? {
        check.loads.lazy.flatMap(\.verdict.reasons).first?.message
    }

    /// The server fixes for a host: what removes each exception it needs, or makes it loadable at all.
    package static func serverAdvice(_ check: PlistCheckJSON.TargetJSON) -> HostAdvice? {
        guard let advice = check.advice, !check.unreachable else { return nil }
        return advice.fixes.isEmpty && advice.impossibleReason == nil ? nil : advice
    }

    /// A check's result in the Markdown and HTML host tables (`pass` and `fail` word PASS and FAIL).
    package static func result(_ check: PlistCheckJSON.TargetJSON?, pass: String, fail: String) -> String {
        check.map { $0.unreachable ? "unreachable" : $0.passes ? pass : fail } ?? "not loaded"
    }

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
}
