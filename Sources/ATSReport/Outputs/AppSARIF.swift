import ATSApp
import ATSEngine
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `app --format sarif`: each bundle's lint findings, and its live check's failing loads and
/// tightening findings, at their keys in that bundle's Info.plist, through the report library
/// (`ReportSARIF`), as `plist lint` and `plist check` place them (docs/app.md, "SARIF").
///
/// Where an Info.plist is: in an .app or .xcarchive directory, the file's path (the input's
/// path joined with the plist's path under it), so code scanning resolves it as any file. In an
/// .ipa it is no file of its own: the log lists the archive as `run.artifacts[0]` and each
/// Info.plist as an artifact nested in it (`parentIndex` 0) whose uri is its path inside the
/// archive ("Payload/Demo.app/Info.plist"); each result's location names that artifact by
/// `index`. A binary Info.plist has no lines: its results are placed at the file.
package enum AppSARIF {
    package static func log(_ report: AppReport, toolVersion: String) -> SARIFLog {
        let inventory = report.inventory
        var artifacts: [SARIFLog.Artifact] = []
        if inventory.inputKind == .ipa {
            artifacts.append(.init(location: .init(uri: SARIFLog.fileURI(inventory.input)), parentIndex: nil))
        }
        var findings: [SARIFFinding] = []
        var checkDiagnostics: [PlistDiagnostic] = []
        for bundle in inventory.bundles {
            guard let inputPath = bundle.infoPlistInputPath, let document = bundle.document else { continue }
            let uri: String, artifact: Int?
            if inventory.inputKind == .ipa {
                uri = SARIFLog.fileURI(inputPath)
                artifact = artifacts.count
                artifacts.append(.init(location: .init(uri: uri, index: nil), parentIndex: 0))
            } else {
                let directory = inventory.input.hasSuffix("/") ? String(inventory.input.dropLast()) : inventory.input
                uri = SARIFLog.fileURI(directory + "/" + inputPath)
                artifact = nil
            }
            let locations = PlistLocations(path: inputPath, document: document, bytes: Data(bundle.infoPlistXML ?? []))
            var diagnostics = PlistDiagnostics.lint(bundle.lint)
            if let result = report.results.first(where: { $0.bundle.path == bundle.path }), let tightening = result.tightening {
                let checked = PlistDiagnostics.check(result.checks.map(\.check), tightening)
                checkDiagnostics += checked
                diagnostics += checked
            }
            findings += PlistDiagnostics.findings(diagnostics, uri: uri, artifact: artifact, locations: locations)
        }
        // Every lint rule, then the check's kinds and the failure classes found (each id once).
        var rules = PlistDiagnostics.lintRules
        var seen = Set(rules.map(\.id))
        for rule in PlistDiagnostics.checkRules(for: checkDiagnostics) where seen.insert(rule.id).inserted { rules.append(rule) }
        return ReportSARIF.log(findings, rules: rules, artifacts: artifacts.isEmpty ? nil : artifacts, toolVersion: toolVersion)
    }
}
