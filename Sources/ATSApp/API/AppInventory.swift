import ATSPolicy
import TLSFacts

/// A host the app names, with where: the result of steps 1 to 3 of `atsprobe app`.
public struct FoundHost: Sendable, Hashable {
    public var host: String
    /// https for a bare name: what a URLSession load of it would use.
    public var scheme: Target.Scheme
    /// Only when the URL names one.
    public var port: Int?
    /// The bundle whose dictionary governs its loads (AppBundle.dictionaryOwner).
    public var bundle: String
    /// Up to three distinct spellings as found (untrusted: escape before printing).
    public var written: [String]
    /// The files it was found in, relative to the app, "the hosts asked for" for a host only listed (`--hosts-only` on the command line).
    public var sources: [String]
    /// Why it is not checked; nil when it is.
    public var filtered: NoiseFilter.Reason?

    /// Named only in a dictionary (an NSExceptionDomains key in an Info.plist), so checked on
    /// https's default port as a guess: the app's code never showed how it loads the host.
    public var isDictionaryGuess: Bool {
        port == nil && scheme == .https && !sources.isEmpty && sources.allSatisfy(AppScan.isDictionaryFile)
    }

    /// The target to load: the origin, path "/".
    public var target: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return "\(scheme.rawValue)://\(name)\(port.map { ":\($0)" } ?? "")/"
    }
}

/// What an app declares and what it talks to, read without connecting.
public struct AppInventory {
    public enum InputKind: String, Sendable, Hashable, Codable { case ipa, app, xcarchive }

    /// The path given.
    public var input: String
    public var inputKind: InputKind
    /// The app bundle's directory name, "Demo.app".
    public var appName: String
    /// The app first, then its other bundles by path.
    public var bundles: [AppBundle]
    /// The hosts to check, by governing bundle, then host.
    public var hosts: [FoundHost]
    /// The hosts the noise filter, --exclude or --hosts-only left out, with the reason.
    public var filtered: [FoundHost]
    public var notes: [String]

    public func bundle(_ path: String) -> AppBundle? { bundles.first { $0.path == path } }
}
