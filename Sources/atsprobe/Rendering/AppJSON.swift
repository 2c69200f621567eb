import ATSApp
import ATSEngine
import ATSAdvice
import ATSPolicy
import ATSReport
import PropertyList
import TextSupport
import TLSFacts

/// `atsprobe app --format json` (docs/app.md, "JSON"). Versioned by schemaVersion. Names read
/// from the app (paths, identifiers, spellings, notes) are escaped as in text (`e`): JSON
/// would escape C0 controls but pass bidi overrides through to whoever displays them. The
/// dictionaries themselves (`ats`, `tightened`) are data and stay as written.
struct AppJSON: Encodable {
    let schemaVersion = jsonSchemaVersion
    /// Set by the command: what the run was made with (docs/json-schema.md, "Run").
    var run: RunInfo?
    let input: String
    let kind: String
    let app: String
    /// nil with --offline.
    let ruleSet: String?
    let offline: Bool
    let bundles: [BundleJSON]
    let hosts: [HostJSON]
    let filtered: [HostJSON]
    /// One per host checked (empty offline).
    let checks: [CheckJSON]
    let notes: [String]

    init(_ report: AppReport) {
        let inventory = report.inventory
        input = e(inventory.input)
        kind = inventory.inputKind.rawValue
        app = e(inventory.appName)
        ruleSet = report.ruleSet?.id
        offline = report.offline
        bundles = inventory.bundles.map { bundle in BundleJSON(bundle, result: report.results.first { $0.bundle.path == bundle.path }) }
        hosts = inventory.hosts.map(HostJSON.init)
        filtered = inventory.filtered.map(HostJSON.init)
        checks = report.checks.map(CheckJSON.init)
        notes = inventory.notes.map(e)
    }

    struct BundleJSON: Encodable {
        /// Relative to the app; "" for the app itself.
        let path: String
        let kind: String
        let identifier: String?
        let executable: String?
        let infoPlist: String?
        let infoPlistFormat: String?
        /// The bundle whose dictionary governs its loads ("" the app).
        let dictionaryOwner: String
        let ats: PropertyListValue?
        let lint: [LintFinding]
        let notes: [String]
        /// Only for a bundle with a dictionary of its own under which a host was checked.
        let tight: Bool?
        let findings: [TighteningFinding]?
        let tighteningNotes: [String]?
        let unusedEntries: [String]?
        let tightened: PropertyListValue?
        let tightenedPlist: String?

        init(_ bundle: AppBundle, result: AppReport.DictionaryResult?) {
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
            tighteningNotes = tightening?.notes
            unusedEntries = tightening == nil ? nil : result?.unusedEntries
            tightened = tightening.map { .dictionary($0.tightened) }
            tightenedPlist = result?.tightenedPlist
        }
    }

    struct HostJSON: Encodable {
        let host: String
        let scheme: String
        let port: Int?
        let target: String
        let bundle: String
        let written: [String]
        let sources: [String]
        /// Why it is not checked (filtered only): apple, schema, documentation, loopback, example, excluded, notListed.
        let filtered: String?

        init(_ host: FoundHost) {
            self.host = host.host
            scheme = host.scheme.rawValue
            port = host.port
            target = host.target
            bundle = e(host.bundle)
            written = host.written.map(e)
            sources = host.sources.map(e)
            filtered = host.filtered?.rawValue
        }
    }

    struct CheckJSON: Encodable {
        /// The bundle whose dictionary the load ran under.
        let bundle: String
        let host: String
        /// `plist check`'s per-target object, unchanged.
        let check: PlistCheckJSON.TargetJSON
        let remedy: String?
        /// The advice with the handshakes' evidence and the server fixes.
        let advice: DiagnosticsJSON.SuggestionJSON?

        init(_ item: AppReport.HostCheck) {
            bundle = e(item.host.bundle)
            host = item.host.host
            check = PlistCheckJSON.TargetJSON(item.check)
            remedy = item.check.passes ? nil : AppReport.remedy(item.check)
            advice = item.check.diagnostics.map { DiagnosticsJSON.SuggestionJSON($0.advice) }
        }
    }
}

/// Control and bidi characters escaped (UntrustedText), no length cut below 4096.
private func e(_ text: String) -> String { UntrustedText.escape(text, limit: 4096) }
