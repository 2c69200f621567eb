import ATSAdvice
import ATSPolicy
import PropertyList
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts

/// One bundle of an app: the app itself, an app extension, an embedded framework or a nested
/// app (a watch app), with what its Info.plist declares.
public struct AppBundle {
    public enum Kind: String, Sendable, Hashable, Codable {
        case app
        case appExtension = "extension"
        case framework
        case nestedApp
    }

    /// Relative to the app: "" for the app itself, "PlugIns/Share.appex" for an extension.
    public var path: String
    public var kind: Kind
    /// Where its Info.plist was read from, relative to the app; nil when it has none.
    public var infoPlistPath: String?
    public var document: PropertyListDocument?
    /// Where its Info.plist is inside the input: the archive entry's path in an .ipa or
    /// .xcarchive ("Payload/Demo.app/Info.plist"), the path under an .app directory; nil without one.
    public var infoPlistInputPath: String? = nil
    /// The Info.plist's bytes when it is XML (bounded as it was read), so findings can be placed
    /// at a key's line (`--format sarif`); nil for a binary plist, which has no lines.
    public var infoPlistXML: [UInt8]? = nil
    public var identifier: String?
    /// CFBundleExecutable, relative to the app, when the file is there.
    public var executablePath: String?
    /// The lint of its Info.plist (docs/lint.md); empty without one.
    public var lint: [LintFinding]
    /// The bundle whose dictionary governs this one's loads: itself, or for a framework the
    /// app or extension it runs in (ATS reads the process's main bundle: docs/app.md).
    public var dictionaryOwner: String
    public var notes: [String]

    /// Its NSAppTransportSecurity dictionary, when it declares one.
    public var atsDictionary: [String: PropertyListValue]? { document?.root[ATSKey.appTransportSecurity.name]?.dictionaryValue }

    /// For people: "Demo.app" for the app, else its path.
    public func name(app: String) -> String { path.isEmpty ? app : path }
}
