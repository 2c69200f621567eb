import TLSFacts

/// Why an app could not be read: one line naming the input (the CLI prints it and exits 64).
public struct AppReadError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file or directory given, as given.
    public var path: String
    /// What is wrong with it, for people; entry names in it are already escaped.
    public var problem: String

    public init(path: String, problem: String) {
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

    public init(maximumEntries: Int = 8_000, maximumEntrySize: Int = 512 * 1024 * 1024,
                maximumTotalSize: Int = 4 * 1024 * 1024 * 1024, maximumRatio: Int = 200,
                ratioFloor: Int = 1024 * 1024, maximumResourceSize: Int = 8 * 1024 * 1024) {
        self.maximumEntries = maximumEntries
        self.maximumEntrySize = maximumEntrySize
        self.maximumTotalSize = maximumTotalSize
        self.maximumRatio = maximumRatio
        self.ratioFloor = ratioFloor
        self.maximumResourceSize = maximumResourceSize
    }
}
