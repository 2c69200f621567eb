/// One file, directory or symbolic link of an app, its path relative to the tree's root with
/// "/" separators and no "." or ".." components (readers refuse those before this exists).
package struct TreeEntry: Sendable, Hashable {
    package enum Kind: Sendable, Hashable {
        case file
        case directory
        /// The link's text, as stored: never followed outside the tree (TreePath.resolve).
        case symlink(target: String)
    }

    package var path: String
    package var kind: Kind
    /// Bytes (uncompressed, for an archive entry).
    package var size: Int

    package init(path: String, kind: Kind, size: Int) {
        self.path = path
        self.kind = kind
        self.size = size
    }
}

/// An app's files, wherever they are: an .ipa read in place (ZipArchive) or a directory
/// (DirectoryTree). Nothing is ever extracted to disk, so no hostile entry can land anywhere.
package protocol FileTree: AnyObject {
    /// What the input was called, for messages.
    var source: String { get }
    var entries: [TreeEntry] { get }
    /// The bytes of a file entry, refusing more than `limit`.
    func read(_ entry: TreeEntry, limit: Int) throws(AppReadError) -> [UInt8]
    /// The same bytes in pieces (1 MiB at most), for files too big to hold whole.
    func stream(_ entry: TreeEntry, limit: Int, _ body: (ArraySlice<UInt8>) -> Void) throws(AppReadError)
}

/// Lexical path handling inside a tree: symlinks resolved without touching the disk.
enum TreePath {
    /// Components of a relative path, or nil when it is absolute or climbs above its root
    /// ("..", at any depth) or holds a NUL. Backslashes count as separators: a Windows-made
    /// archive's "..\\..\\x" would be a traversal for some extractor.
    static func components(_ path: String) -> [Substring]? {
        if path.hasPrefix("/") || path.contains("\0") { return nil }
        var parts: [Substring] = []
        for part in path.split(whereSeparator: { $0 == "/" || $0 == "\\" }) {
            if part == "." { continue }
            if part == ".." { return nil }
            parts.append(part)
        }
        return parts
    }

    /// Where the symlink at `linkPath` (relative to the tree) points, relative to the tree, or
    /// nil when it points outside `root` (a prefix of the tree such as "Payload/A.app/").
    static func resolve(link linkPath: String, target: String, within root: String) -> String? {
        if target.hasPrefix("/") || target.contains("\0") { return nil }
        var parts = linkPath.split(separator: "/").dropLast().map(String.init)
        for part in target.split(whereSeparator: { $0 == "/" || $0 == "\\" }) {
            if part == "." { continue }
            if part == ".." {
                if parts.isEmpty { return nil }
                parts.removeLast()
            } else {
                parts.append(String(part))
            }
        }
        let resolved = parts.joined(separator: "/")
        guard root.isEmpty || resolved.hasPrefix(root) || resolved + "/" == root else { return nil }
        return resolved
    }
}
