import ATSReport
import ATSApp
import ATSAdvice
import ATSPolicy
import PropertyList
import TextSupport
import TLSFacts

/// `atsprobe app --format json` (docs/app.md, "JSON"). Versioned by schemaVersion. Names read
/// from the app (paths, identifiers, spellings, notes) are escaped as in text (`e`): JSON
/// would escape C0 controls but pass bidi overrides through to whoever displays them. The
/// dictionaries themselves (`ats`, `tightened`) are data and stay as written.
///
/// The document every `app` format renders: the text, Markdown, HTML, SARIF and plist outputs
/// read the render-only fields (the inventory as read, each dictionary's hosts and tightening),
/// left out of the encoding. CommandRuns writes it from the engine's AppReport (AppRun.swift);
/// it stays beside its renderers rather than in ATSContract because it holds ATSApp's values.
package struct AppJSON: Encodable {
    package let schemaVersion = jsonSchemaVersion
    /// Set by the command: what the run was made with (docs/json-schema.md, "Run").
    package var run: RunInfo?
    package let input: String
    package let kind: String
    package let app: String
    /// nil with --offline.
    package let ruleSet: String?
    package let offline: Bool
    package let bundles: [BundleJSON]
    package let hosts: [HostJSON]
    package let filtered: [HostJSON]
    /// One per host checked (empty offline).
    package let checks: [CheckJSON]
    package let notes: [String]

    /// Render-only: the bundles and hosts as read from the app.
    package let inventory: AppInventory
    /// Render-only: each bundle with a dictionary of its own and what the live check says of it
    /// (empty offline).
    package let results: [DictionaryResult]

    private enum CodingKeys: String, CodingKey {
        case schemaVersion, run, input, kind, app, ruleSet, offline, bundles, hosts, filtered, checks, notes
    }

    /// One host's load under its bundle's dictionary: `plist check`'s per-target document.
    package struct HostCheck {
        package var host: FoundHost
        package var check: PlistCheckJSON.TargetJSON

        package init(host: FoundHost, check: PlistCheckJSON.TargetJSON) {
            self.host = host
            self.check = check
        }
    }

    /// A bundle with a dictionary of its own (the app, an extension, a nested app) and what
    /// the live check says of it. Frameworks have none: their hosts count for their owner.
    package struct DictionaryResult {
        package var bundle: AppBundle
        package var checks: [HostCheck]
        /// nil when no host was checked under it: nothing measured, nothing to tighten.
        package var tightening: TighteningReport?
        package var tightenedPlist: String?
        /// NSExceptionDomains entries that no checked host falls under (either reading).
        package var unusedEntries: [String]

        package init(bundle: AppBundle, checks: [HostCheck], tightening: TighteningReport?, tightenedPlist: String?, unusedEntries: [String]) {
            self.bundle = bundle
            self.checks = checks
            self.tightening = tightening
            self.tightenedPlist = tightenedPlist
            self.unusedEntries = unusedEntries
        }
    }

    /// `ruleSet` is nil offline (nothing loaded, no results).
    package init(inventory: AppInventory, ruleSet: String?, results: [DictionaryResult]) {
        self.inventory = inventory
        self.results = results
        input = e(inventory.input)
        kind = inventory.inputKind.rawValue
        app = e(inventory.appName)
        self.ruleSet = ruleSet
        offline = ruleSet == nil
        bundles = inventory.bundles.map { bundle in BundleJSON(bundle, result: results.first { $0.bundle.path == bundle.path }) }
        hosts = inventory.hosts.map(HostJSON.init)
        filtered = inventory.filtered.map(HostJSON.init)
        checks = results.flatMap(\.checks).map(CheckJSON.init)
        notes = inventory.notes.map(e)
    }

    package struct BundleJSON: Encodable {
        /// Relative to the app; "" for the app itself.
        package let path: String
        package let kind: String
        package let identifier: String?
        package let executable: String?
        package let infoPlist: String?
        package let infoPlistFormat: String?
        /// The bundle whose dictionary governs its loads ("" the app).
        package let dictionaryOwner: String
        package let ats: PropertyListValue?
        package let lint: [LintFinding]
        package let notes: [String]
        /// Only for a bundle with a dictionary of its own under which a host was checked.
        package let tight: Bool?
        package let findings: [TighteningFinding]?
        package let tighteningNotes: [String]?
        package let unusedEntries: [String]?
        package let tightened: PropertyListValue?
        package let tightenedPlist: String?

        package init(_ bundle: AppBundle, result: AppJSON.DictionaryResult?) {
            path = e(bundle.path)
            kind = bundle.kind.rawValue
            identifier = bundle.identifier.map(e)
            executable = bundle.executablePath.map(e)
            infoPlist = bundle.infoPlistPath.map(e)
            infoPlistFormat = bundle.document?.format.rawValue
            dictionaryOwner = e(bundle.dictionaryOwner)
            ats = bundle.atsDictionary.map(PropertyListValue.dictionary)
            lint = bundle.lint
            notes = bundle.notes.map(e)
            let tightening = result?.tightening
            tight = tightening?.isTight
            findings = tightening?.findings
            tighteningNotes = tightening?.notes.map(\.text)
            unusedEntries = tightening == nil ? nil : result?.unusedEntries
            tightened = tightening.map { .dictionary($0.tightened) }
            tightenedPlist = result?.tightenedPlist
        }
    }

    package struct HostJSON: Encodable {
        package let host: String
        package let scheme: String
        package let port: Int?
        package let target: String
        package let bundle: String
        package let written: [String]
        package let sources: [String]
        /// Why it is not checked (filtered only): apple, schema, documentation, loopback, example, excluded, notListed.
        package let filtered: String?
        /// Named only as an NSExceptionDomains key (not in the binary or another resource), so
        /// loaded on port 443 as a guess; absent otherwise.
        package let fromDictionaryKey: Bool?

        package init(_ host: FoundHost) {
            self.host = host.host
            scheme = host.scheme.rawValue
            port = host.port
            target = host.target
            bundle = e(host.bundle)
            written = host.written.map(e)
            sources = host.sources.map(e)
            filtered = host.filtered?.rawValue
            fromDictionaryKey = host.isDictionaryGuess ? true : nil
        }
    }

    package struct CheckJSON: Encodable {
        /// The bundle whose dictionary the load ran under.
        package let bundle: String
        package let host: String
        /// `plist check`'s per-target object, unchanged.
        package let check: PlistCheckJSON.TargetJSON
        /// For a failing load: what the host needs in the bundle's dictionary, as `plist check`'s
        /// Needs words it (`PlistCheckText.needs`).
        package let remedy: String?
        /// The advice with the handshakes' evidence and the server fixes.
        package let advice: DiagnosticsJSON.SuggestionJSON?

        package init(_ item: AppJSON.HostCheck) {
            bundle = e(item.host.bundle)
            host = item.host.host
            check = item.check
            remedy = item.check.passes ? nil : PlistCheckText.needs(item.check)
            advice = item.check.advice.map(DiagnosticsJSON.SuggestionJSON.init)
        }
    }
}

/// Control and bidi characters escaped (UntrustedText), no length cut below 4096.
private func e(_ text: String) -> String { UntrustedText.escape(text, limit: 4096) }
