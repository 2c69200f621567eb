import TextSupport
import TLSFacts

/// Why an app could not be read: one line naming the input (the CLI prints it and exits 64).
public struct AppReadError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong, for code: callers compare this, never `problem`'s text.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// The file, a directory in it or an entry could not be opened or read.
        case unreadable
        /// A file or directory read changed while it was read.
        case changed
        /// No app: neither a file nor a directory, no .app inside, or an app without a readable Info.plist.
        case notAnApp
        /// Not a zip archive, or its central directory is damaged.
        case notAnArchive
        /// An entry that is damaged: a missing local header, sizes that disagree, bad DEFLATE data, a CRC mismatch.
        case damagedEntry
        /// An entry the archive's directory names but does not hold.
        case missingEntry
        /// Past a bound of `ArchiveLimits` (entries, sizes, depth, bundles, name length).
        case limitExceeded
        /// Refused as hostile: path traversal, a link out of the bundle, overlapping entries, a zip bomb, a name twice.
        case unsafeEntry
        /// What atsprobe does not read: zip64, encryption, a compression method other than stored and DEFLATE.
        case unsupported
        /// This machine ran out of memory (zlib could not start).
        case outOfMemory
    }

    public var code: Code
    /// The file or directory given, as given.
    public var path: String
    /// What is wrong with it, for people; entry names in it are already escaped.
    public var problem: String

    public init(_ code: Code, path: String, problem: String) {
        self.code = code
        self.path = path
        self.problem = problem
    }

    public var description: String { "'\(UntrustedText.escape(path, limit: 400))': \(problem)" }
}

/// Bounds on what reading an app may cost. An .ipa is untrusted input: a zip bomb, a
/// million-entry archive or a path-traversal entry must be refused before it costs anything.
public struct ArchiveLimits: Sendable, Hashable {
    /// Entries in an archive, or files in a bundle directory. Large real apps hold a few
    /// thousand files (asset catalogs are one file each); `--max-entries` raises it.
    public var maximumEntries: Int
    /// The largest single file read, uncompressed (an executable is scanned whole).
    public var maximumEntrySize: Int
    /// The sum of the declared uncompressed sizes of every entry in an archive.
    public var maximumTotalSize: Int
    /// Uncompressed / compressed for an entry above `ratioFloor` bytes. DEFLATE can reach
    /// about 1032:1; real executables and plists compress well under 20:1.
    public var maximumRatio: Int
    /// Entries smaller than this are not held to the ratio (a 4 KiB file of zeros is no bomb).
    public var ratioFloor: Int
    /// Text resources (plists, JSON, strings) larger than this are skipped, with a note.
    public var maximumResourceSize: Int
    /// Path components of an entry (or levels of a bundle directory walked): 64, the directory
    /// walker's bound. Every ancestor of an entry is a directory the reader indexes, so depth
    /// times the entry count bounds that index.
    public var maximumDepth: Int
    /// Bytes in an entry's name: 1,024, PATH_MAX on Apple's platforms (xnu
    /// `bsd/sys/syslimits.h`): no app's file can have a longer path where it is installed.
    public var maximumNameBytes: Int
    /// Bundles (the app, its .appex, .framework and nested .app directories) in one app: real
    /// apps hold tens to a few hundred; a hostile archive can nest thousands.
    public var maximumBundles: Int

    public init(maximumEntries: Int = 8_000, maximumEntrySize: Int = 512 * 1024 * 1024,
                maximumTotalSize: Int = 4 * 1024 * 1024 * 1024, maximumRatio: Int = 200,
                ratioFloor: Int = 1024 * 1024, maximumResourceSize: Int = 8 * 1024 * 1024,
                maximumDepth: Int = 64, maximumNameBytes: Int = 1024, maximumBundles: Int = 2_000) {
        self.maximumEntries = maximumEntries
        self.maximumEntrySize = maximumEntrySize
        self.maximumTotalSize = maximumTotalSize
        self.maximumRatio = maximumRatio
        self.ratioFloor = ratioFloor
        self.maximumResourceSize = maximumResourceSize
        self.maximumDepth = maximumDepth
        self.maximumNameBytes = maximumNameBytes
        self.maximumBundles = maximumBundles
    }
}
