import ATSAdvice
import ATSPolicy
import PropertyList
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TextSupport
import TLSFacts

/// Steps 1 to 3 of `atsprobe app` (docs/app.md): read the .ipa, .app or .xcarchive, find its
/// bundles and their dictionaries, and the hosts each one names. No network.
public enum AppScan {
    /// The resource files scanned for hosts, by extension (lower case).
    public static let resourceExtensions: Set<String> = ["plist", "json", "strings", "stringsdict", "xml", "js", "html", "txt"]
    /// Directories that hold signatures and DRM data, never hosts the app loads.
    static let skippedDirectories: Set<String> = ["_CodeSignature", "SC_Info"]

    public static func inventory(path: String, limits: ArchiveLimits = ArchiveLimits(), filter: NoiseFilter = NoiseFilter(),
                                 hostsOnly: [Target]? = nil) throws(AppReadError) -> AppInventory {
        let (tree, kind) = try open(path, limits: limits)
        var reader = try AppReader(tree: tree, kind: kind, limits: limits)
        let bundles = try reader.bundles()
        let found = reader.scanHosts(bundles)
        var notes = reader.notes

        var kept: [FoundHost] = [], filtered: [FoundHost] = []
        let listed = hostsOnly.map { Set($0.map(\.host)) }
        for var host in found.values.sorted(by: FoundHost.order) {
            if filter.exclude.contains(where: { NoiseFilter.matches($0, host.host) }) {
                host.filtered = .excluded
            } else if let listed {
                host.filtered = listed.contains(host.host) ? nil : .notListed
            } else {
                host.filtered = filter.reason(host.host)
            }
            if host.filtered == nil { kept.append(host) } else { filtered.append(host) }
        }
        // A host named only in a dictionary (an NSExceptionDomains key, found in Info.plist) is
        // loaded on the ports the code shows for it, and on 443 only when the code shows none
        // (issue 25): a 443 guess beside a port the app really uses is a load the app never makes.
        let guesses = kept.filter { host in
            host.isDictionaryGuess
                && kept.contains { $0.bundle == host.bundle && $0.host == host.host && ($0.port != nil || $0.scheme != .https)
                    && !$0.sources.allSatisfy(AppScan.isDictionaryFile) }
        }
        for guess in guesses {
            let shown = kept.filter { $0.bundle == guess.bundle && $0.host == guess.host && $0 != guess }.map(\.target)
            notes.append("\(UntrustedText.escape(guess.host)): named in the dictionary and found in code as \(shown.map { UntrustedText.escape($0) }.joined(separator: ", ")); checked there, not on port 443")
        }
        kept.removeAll { guesses.contains($0) }
        // Listed hosts the app does not name are checked too, under the app's own dictionary.
        for target in hostsOnly ?? [] where !kept.contains(where: { $0.host == target.host }) {
            let host = FoundHost(host: target.host, scheme: target.scheme, port: target.port == (target.scheme == .https ? 443 : 80) ? nil : target.port,
                                 bundle: "", written: [target.url], sources: ["the hosts asked for"], filtered: nil)
            kept.append(host)
        }
        return AppInventory(input: path, inputKind: kind, appName: reader.appName, bundles: bundles,
                            hosts: kept, filtered: filtered, notes: notes)
    }

    /// A bundle's Info.plist: where the dictionary's own keys (NSExceptionDomains) are found.
    public static func isDictionaryFile(_ path: String) -> Bool { path == "Info.plist" || path.hasSuffix("/Info.plist") }

    /// A directory is read in place; anything else must be a zip (an .ipa).
    static func open(_ path: String, limits: ArchiveLimits) throws(AppReadError) -> (FileTree, AppInventory.InputKind) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw AppReadError(.unreadable, path: path, problem: "cannot read: \(String(cString: strerror(errno)))")
        }
        if info.st_mode & S_IFMT == S_IFDIR {
            let trimmed = path.hasSuffix("/") ? String(path.dropLast()) : path
            return (try DirectoryTree(path: path, limits: limits), trimmed.lowercased().hasSuffix(".xcarchive") ? .xcarchive : .app)
        }
        // A FIFO would block the open until a writer came; a device is no archive.
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw AppReadError(.notAnApp, path: path, problem: "not a regular file or a directory")
        }
        return (try ZipArchive(path: path, limits: limits), .ipa)
    }
}

extension FoundHost {
    static func order(_ a: FoundHost, _ b: FoundHost) -> Bool {
        (a.bundle, a.host, a.scheme.rawValue, a.port ?? 0) < (b.bundle, b.host, b.scheme.rawValue, b.port ?? 0)
    }
}

/// The walk over one tree: where the app is, its bundles, the files each one owns.
struct AppReader {
    let tree: FileTree
    let limits: ArchiveLimits
    /// The app's directory in the tree ("" when the tree is the app).
    let root: String
    let appName: String
    /// App-relative path -> entry, for everything inside the app.
    var index: [String: TreeEntry] = [:]
    /// App-relative directories: every ancestor of an entry, whether or not the archive lists it.
    /// Slices of the entries' own paths, never copies: an entry n levels deep has n ancestors,
    /// and as strings they would cost its length times n (a 32,000-level name took 2 GiB).
    var directories: Set<Substring> = []
    var notes: [String] = []

    init(tree: FileTree, kind: AppInventory.InputKind, limits: ArchiveLimits) throws(AppReadError) {
        self.tree = tree
        self.limits = limits
        // Each ancestor is a prefix of the entry's path ending before a "/" (or the whole path
        // of a directory entry), held as a slice of that path.
        var ancestors = Set<Substring>()
        for entry in tree.entries {
            let path = entry.path
            if entry.kind == .directory { ancestors.insert(path[...]) }
            var index = path.utf8.startIndex
            while let slash = path.utf8[index...].firstIndex(of: UInt8(ascii: "/")) {
                ancestors.insert(path[..<slash])
                index = path.utf8.index(after: slash)
            }
        }
        let hasRootPlist = tree.entries.contains { $0.path == "Info.plist" || $0.path == "Contents/Info.plist" }
        // Only "Payload/X.app" and "Products/Applications/X.app" can be the app: splitting every
        // ancestor (there are up to 64 per entry) would cost far more than these prefix checks.
        let candidates = ancestors.filter { dir in
            let rest = dir.hasPrefix("Payload/") ? dir.utf8.dropFirst(8)
                : dir.hasPrefix("Products/Applications/") ? dir.utf8.dropFirst(22) : nil
            guard let rest, !rest.isEmpty, !rest.contains(UInt8(ascii: "/")) else { return false }
            return dir.lowercased().hasSuffix(".app")
        }.map(String.init).sorted()
        let source = tree.source
        // An .xcarchive has an Info.plist of its own (the archive's): its app is under Products.
        if hasRootPlist && kind != .xcarchive {
            root = ""
            let trimmed = source.hasSuffix("/") ? String(source.dropLast()) : source
            appName = String(trimmed.split(separator: "/").last ?? "app")
        } else if let first = candidates.first {
            root = first
            appName = String(first.split(separator: "/").last!)
            if candidates.count > 1 { notes.append("\(candidates.count) apps found; reading \(first) only") }
        } else {
            throw AppReadError(.notAnApp, path: source, problem: "no app found (an .ipa holds Payload/NAME.app/, an .xcarchive Products/Applications/NAME.app)")
        }

        let prefix = root.isEmpty ? "" : root + "/"
        for entry in tree.entries {
            // A link may point anywhere inside the app, never out of it (nor out of the archive).
            if case .symlink(let target) = entry.kind {
                let inApp = root.isEmpty || entry.path.hasPrefix(prefix)
                if TreePath.resolve(link: entry.path, target: target, within: inApp ? prefix : "") == nil {
                    throw AppReadError(.unsafeEntry, path: source, problem: "symlink '\(UntrustedText.escape(entry.path, limit: 200))' -> '\(UntrustedText.escape(target, limit: 200))' points out of the bundle; refused")
                }
            }
            guard root.isEmpty || entry.path.hasPrefix(prefix) else { continue }
            let relative = String(entry.path.dropFirst(prefix.count))
            index[relative] = TreeEntry(path: entry.path, kind: entry.kind, size: entry.size)
        }
        for path in ancestors where root.isEmpty || path.hasPrefix(prefix) {
            directories.insert(path.dropFirst(prefix.count))
        }
    }

    /// The file at an app-relative path, following links inside the app, in any component (a
    /// macOS framework's `Versions/Current/Resources/Info.plist`), 16 links at most.
    func file(_ path: String) -> (path: String, entry: TreeEntry)? {
        var pending = path.split(separator: "/").map(String.init)
        var resolved: [String] = []
        var hops = 0
        while !pending.isEmpty {
            let current = (resolved + [pending.removeFirst()]).joined(separator: "/")
            // Archives often list no entries for directories: a path's ancestors are directories.
            guard let entry = index[current] ?? (directories.contains(current[...]) ? TreeEntry(path: current, kind: .directory, size: 0) : nil) else {
                return nil
            }
            switch entry.kind {
            case .file:
                return pending.isEmpty ? (current, entry) : nil
            case .directory:
                resolved = current.split(separator: "/").map(String.init)
            case .symlink(let target):
                hops += 1
                guard hops <= 16, let next = TreePath.resolve(link: current, target: target, within: "") else { return nil }
                pending = next.split(separator: "/").map(String.init) + pending
                resolved = []
            }
        }
        return nil
    }

    func bundles() throws(AppReadError) -> [AppBundle] {
        let found = directories.filter { dir in
            let last = dir.utf8.lastIndex(of: UInt8(ascii: "/")).map { dir[dir.index(after: $0)...] } ?? dir
            let lowered = last.lowercased()
            return lowered.hasSuffix(".appex") || lowered.hasSuffix(".framework") || lowered.hasSuffix(".app")
        }
        // Each bundle is compared with those enclosing it and owns the files under it: the work
        // grows with bundles times files, so a hostile archive of nested `.framework`
        // directories (200 entries 60 deep: 12,000 bundles) ran for minutes. Counted before
        // sorting, which costs as much again.
        guard found.count < limits.maximumBundles else {
            throw AppReadError(.limitExceeded, path: tree.source, problem: "\(found.count + 1) bundles (.app, .appex and .framework directories), more than the limit of \(limits.maximumBundles); refused")
        }
        var paths = found.map(String.init).sorted()
        paths.insert("", at: 0)
        var bundles: [AppBundle] = []
        for path in paths {
            let last = path.split(separator: "/").last?.lowercased() ?? ""
            let kind: AppBundle.Kind = path.isEmpty ? .app : last.hasSuffix(".appex") ? .appExtension : last.hasSuffix(".framework") ? .framework : .nestedApp
            bundles.append(try bundle(path, kind: kind, enclosing: bundles))
        }
        return bundles
    }

    func join(_ bundle: String, _ path: String) -> String { bundle.isEmpty ? path : bundle + "/" + path }

    func bundle(_ path: String, kind: AppBundle.Kind, enclosing: [AppBundle]) throws(AppReadError) -> AppBundle {
        var notes: [String] = []
        var document: PropertyListDocument?
        var xml: [UInt8]?
        let plistCandidates = ["Info.plist", "Contents/Info.plist", "Resources/Info.plist", "Versions/Current/Resources/Info.plist"]
        let plist = plistCandidates.lazy.compactMap { self.file(self.join(path, $0)) }.first
        if let plist {
            do {
                let bytes = try tree.read(plist.entry, limit: PropertyListFile.defaultMaximumSize)
                document = try PropertyListFile.parse(Data(bytes), path: join(appName, plist.path))
                if document?.format == .xml { xml = bytes }
            } catch let error as AppReadError {
                throw error
            } catch {
                if kind == .app { throw AppReadError(.notAnApp, path: tree.source, problem: "\(error)") }
                notes.append("its Info.plist cannot be read: \(error)")
            }
        } else if kind == .app {
            throw AppReadError(.notAnApp, path: tree.source, problem: "no Info.plist in \(UntrustedText.escape(appName, limit: 200))")
        } else {
            notes.append("no Info.plist")
        }
        let identifier = document?.root["CFBundleIdentifier"]?.stringValue
        var executablePath: String?
        // CFBundle finds the executable by CFBundleExecutable, then the old NSExecutable, then
        // the bundle's own name without its extension (CoreFoundation, CFBundle.c,
        // _CFBundleCopyExecutableName): atsprobe does the same, and says when it had to guess.
        let declared = ["CFBundleExecutable", "NSExecutable"].lazy.compactMap { document?.root[$0]?.stringValue }.first { !$0.isEmpty }
        let bundleName = (path.isEmpty ? appName : String(path.split(separator: "/").last ?? ""))
        let guessed = bundleName.split(separator: ".", omittingEmptySubsequences: false).dropLast().joined(separator: ".")
        if document != nil, let name = declared ?? (guessed.isEmpty ? nil : guessed), TreePath.components(name)?.count == 1 {
            executablePath = ["", "Contents/MacOS/", "Versions/Current/"].lazy.compactMap { self.file(self.join(path, $0 + name))?.path }.first
            let shown = UntrustedText.escape(name, limit: 200)
            if declared != nil {
                if executablePath == nil { notes.append("its executable '\(shown)' is not in the bundle") }
            } else if executablePath != nil {
                notes.append("its Info.plist has no CFBundleExecutable: scanned '\(shown)', the bundle's name, as CFBundle finds it")
            } else {
                notes.append("its Info.plist has no CFBundleExecutable and no file has the bundle's name '\(shown)': no executable scanned")
            }
        } else if document != nil, declared == nil {
            notes.append("its Info.plist has no CFBundleExecutable: no executable scanned")
        }

        // ATS reads the process's main bundle: an app's or an extension's own, never a framework's.
        var owner = path
        if kind == .framework {
            owner = enclosing.filter { $0.kind != .framework && (path.hasPrefix($0.path + "/") || $0.path.isEmpty) }
                .max { $0.path.count < $1.path.count }?.path ?? ""
            if document?.root[ATSKey.appTransportSecurity.name] != nil {
                notes.append("declares NSAppTransportSecurity, which ATS ignores: a framework's loads run under the dictionary of \(owner.isEmpty ? appName : owner)")
            }
        } else if kind != .app, document != nil, document?.root[ATSKey.appTransportSecurity.name] == nil,
                  bundles0HasATS(enclosing) {
            notes.append("declares no NSAppTransportSecurity: its loads get the ATS defaults, not the app's exceptions")
        }
        // A framework's dictionary is never read (above): linting it would report on nothing ATS uses.
        let lint = kind == .framework ? [] : document.map(ATSLinter.lint) ?? []
        var bundle = AppBundle(path: path, kind: kind, infoPlistPath: plist?.path, document: document, identifier: identifier,
                               executablePath: executablePath, lint: lint, dictionaryOwner: owner, notes: notes)
        bundle.infoPlistInputPath = plist?.entry.path
        bundle.infoPlistXML = xml
        return bundle
    }

    private func bundles0HasATS(_ enclosing: [AppBundle]) -> Bool { enclosing.first?.atsDictionary != nil }

    /// The deepest bundle holding an app-relative path.
    func owningBundle(_ path: String, _ bundles: [AppBundle]) -> AppBundle {
        bundles.filter { $0.path.isEmpty || path.hasPrefix($0.path + "/") }.max { $0.path.count < $1.path.count }!
    }

    /// Every host named in the bundles' executables and text resources, keyed by governing
    /// bundle, scheme, host and port.
    mutating func scanHosts(_ bundles: [AppBundle]) -> [String: FoundHost] {
        var found: [String: FoundHost] = [:]
        var files: [(path: String, entry: TreeEntry, limit: Int)] = []
        let executables = Set(bundles.compactMap(\.executablePath))
        for path in executables.sorted() {
            if let file = file(path) { files.append((path, file.entry, limits.maximumEntrySize)) }
        }
        for (path, entry) in index.sorted(by: { $0.key < $1.key }) where entry.kind == .file && !executables.contains(path) {
            let parts = path.split(separator: "/")
            guard !parts.contains(where: { AppScan.skippedDirectories.contains(String($0)) }),
                  let ext = parts.last?.split(separator: ".").last?.lowercased(), parts.last!.contains("."),
                  AppScan.resourceExtensions.contains(ext) else { continue }
            guard entry.size <= limits.maximumResourceSize else {
                notes.append("skipped \(UntrustedText.escape(path, limit: 200)): \(entry.size) bytes, over the \(limits.maximumResourceSize)-byte limit for resources")
                continue
            }
            files.append((path, entry, limits.maximumResourceSize))
        }
        for file in files {
            // Executables are streamed (they run to hundreds of megabytes); resources are small
            // and read whole, so a UTF-16 .strings file can be told by its BOM.
            var hits: [HostScanner.Hit]
            do {
                if executables.contains(file.path) {
                    var scanner = HostScanner.Stream()
                    var head: ArraySlice<UInt8>?
                    try tree.stream(file.entry, limit: file.limit) { piece in
                        if head == nil { head = piece }
                        scanner.feed(piece)
                    }
                    hits = scanner.finish()
                    if let head, MachOEncryption.isEncrypted(head) == true {
                        notes.append("\(UntrustedText.escape(file.path, limit: 200)) is FairPlay-encrypted (an App Store download): "
                            + "no host can be read from it; use a development, ad hoc or enterprise build, or the .xcarchive")
                    }
                } else {
                    hits = HostScanner.scan(try tree.read(file.entry, limit: file.limit))
                }
            } catch {
                notes.append("skipped \(UntrustedText.escape(file.path, limit: 200)): \(error.problem)")
                continue
            }
            let owner = owningBundle(file.path, bundles).dictionaryOwner
            for hit in hits {
                let scheme: Target.Scheme = hit.form == .http ? .http : .https
                let port = hit.port == (scheme == .https ? 443 : 80) ? nil : hit.port
                let key = "\(owner)|\(scheme.rawValue)|\(hit.host)|\(port ?? 0)"
                var host = found[key] ?? FoundHost(host: hit.host, scheme: scheme, port: port, bundle: owner, written: [], sources: [], filtered: nil)
                if host.written.count < 3, !host.written.contains(hit.written) { host.written.append(hit.written) }
                if host.sources.count < 10, !host.sources.contains(file.path) { host.sources.append(file.path) }
                found[key] = host
            }
        }
        return found
    }
}
