import ATSReport
import ATSApp
import PropertyList
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
///
/// `sources` (`--source-plist BUNDLE=PATH`) maps a bundle (by path, "" the app) to the Info.plist
/// the repository holds for it: that bundle's results are located in that file, at each key's
/// line when it is XML (`SourcePlist`), so code scanning annotates a repository file.
package enum AppSARIF {
    /// A repository Info.plist a bundle's results are placed in: its path as given (relative
    /// stays relative: the repository's) and, when it is XML, its document and bytes for lines.
    package struct SourcePlist {
        package var path: String
        package var document: PropertyListDocument
        package var bytes: [UInt8]

        package init(path: String, document: PropertyListDocument, bytes: [UInt8]) {
            self.path = path
            self.document = document
            self.bytes = bytes
        }
    }

    package static func log(_ report: AppJSON, toolVersion: String, sources: [String: SourcePlist] = [:]) -> SARIFLog {
        let inventory = report.inventory
        var artifacts: [SARIFLog.Artifact] = []
        let nested = inventory.bundles.contains { $0.infoPlistInputPath != nil && $0.document != nil && sources[$0.path] == nil }
        if inventory.inputKind == .ipa && nested {
            artifacts.append(.init(location: .init(uri: SARIFLog.fileURI(inventory.input)), parentIndex: nil))
        }
        var findings: [SARIFFinding] = []
        var checkDiagnostics: [PlistDiagnostic] = []
        for bundle in inventory.bundles {
            guard var inputPath = bundle.infoPlistInputPath, var document = bundle.document else { continue }
            var xml = bundle.infoPlistXML ?? []
            let uri: String, artifact: Int?
            if let source = sources[bundle.path] {
                inputPath = source.path
                document = source.document
                xml = source.document.format == .xml ? source.bytes : []
                uri = SARIFLog.fileURI(source.path)
                artifact = nil
            } else if inventory.inputKind == .ipa {
                uri = SARIFLog.fileURI(inputPath)
                artifact = artifacts.count
                artifacts.append(.init(location: .init(uri: uri, index: nil), parentIndex: 0))
            } else {
                let directory = inventory.input.hasSuffix("/") ? String(inventory.input.dropLast()) : inventory.input
                uri = SARIFLog.fileURI(directory + "/" + inputPath)
                artifact = nil
            }
            let locations = PlistLocations(path: inputPath, document: document, bytes: Data(xml))
            var diagnostics = PlistDiagnostics.lint(bundle.lint)
            if let result = report.results.first(where: { $0.bundle.path == bundle.path }), let tightening = result.tightening {
                let checked = PlistDiagnostics.check(result.checks.map(\.check), tightening.findings)
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
