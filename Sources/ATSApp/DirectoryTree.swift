#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TextSupport
import TLSFacts

/// An .app or .xcarchive directory, walked with lstat: symlinks are recorded, never followed
/// (a link out of the bundle is refused by AppBundle, as in an archive), and the walk stops at
/// `maximumEntries` files or `maximumDepth` (64) levels.
package final class DirectoryTree: FileTree {
    package let source: String
    package private(set) var entries: [TreeEntry] = []
    private let root: String
    private let limits: ArchiveLimits

    package init(path: String, limits: ArchiveLimits = ArchiveLimits()) throws(AppReadError) {
        source = path
        root = path.hasSuffix("/") && path.count > 1 ? String(path.dropLast()) : path
        self.limits = limits
        try walk("", depth: 0)
    }

    private func fail(_ code: AppReadError.Code, _ problem: String) -> AppReadError { AppReadError(code, path: source, problem: problem) }

    private func walk(_ relative: String, depth: Int) throws(AppReadError) {
        guard depth < limits.maximumDepth else { throw fail(.limitExceeded, "directories nested more than \(limits.maximumDepth) deep; refused") }
        let full = relative.isEmpty ? root : root + "/" + relative
        guard let dir = opendir(full) else {
            throw fail(.unreadable, "cannot read directory '\(UntrustedText.escape(relative, limit: 200))': \(String(cString: strerror(errno)))")
        }
        var names: [String] = []
        while let item = readdir(dir) {
            let name = withUnsafeBytes(of: item.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        closedir(dir)
        for name in names.sorted() {
            let path = relative.isEmpty ? name : relative + "/" + name
            guard entries.count < limits.maximumEntries else {
                throw fail(.limitExceeded, "more than \(limits.maximumEntries) files (the entry limit can be raised)")
            }
            var info = stat()
            guard lstat(root + "/" + path, &info) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                entries.append(TreeEntry(path: path, kind: .directory, size: 0))
                try walk(path, depth: depth + 1)
            case S_IFLNK:
                var buffer = [CChar](repeating: 0, count: 4097)
                let n = readlink(root + "/" + path, &buffer, 4096)
                guard n >= 0 else { continue }
                let target = String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                entries.append(TreeEntry(path: path, kind: .symlink(target: target), size: 0))
            case S_IFREG:
                entries.append(TreeEntry(path: path, kind: .file, size: Int(info.st_size)))
            default:
                continue  // devices, sockets, FIFOs: nothing an app ships
            }
        }
    }

    package func read(_ entry: TreeEntry, limit: Int) throws(AppReadError) -> [UInt8] {
        // O_NOFOLLOW: the entry was a regular file when walked; if it has become a symlink, refuse.
        let full = root + "/" + entry.path
        // O_NONBLOCK: a file swapped for a FIFO since the walk must not block the open.
        let fd = open(full, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { throw fail(.unreadable, "cannot read '\(UntrustedText.escape(entry.path, limit: 200))': \(String(cString: strerror(errno)))") }
        var info = stat()
        let regular = fstat(fd, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
        close(fd)
        guard regular else { throw fail(.changed, "'\(UntrustedText.escape(entry.path, limit: 200))' is no longer a regular file") }
        do {
            return try BoundedFile.read(full, limit: limit)
        } catch {
            switch error {
            case .tooLarge: throw fail(.limitExceeded, "'\(UntrustedText.escape(entry.path, limit: 200))' is more than \(limit) bytes")
            case .system(let code): throw fail(.unreadable, "cannot read '\(UntrustedText.escape(entry.path, limit: 200))': \(String(cString: strerror(code)))")
            case .notAFile(let kind): throw fail(.unreadable, "'\(UntrustedText.escape(entry.path, limit: 200))' is \(kind), not a file")
            }
        }
    }

    package func stream(_ entry: TreeEntry, limit: Int, _ body: (ArraySlice<UInt8>) -> Void) throws(AppReadError) {
        let shown = UntrustedText.escape(entry.path, limit: 200)
        let fd = open(root + "/" + entry.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { throw fail(.unreadable, "cannot read '\(shown)': \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { throw fail(.changed, "'\(shown)' is no longer a regular file") }
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        var total = 0
        while true {
            let count = chunk.withUnsafeMutableBytes { readFile(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw fail(.unreadable, "cannot read '\(shown)': \(String(cString: strerror(errno)))") }
            if count == 0 { return }
            total += count
            guard total <= limit else { throw fail(.limitExceeded, "'\(shown)' is more than \(limit) bytes") }
            body(chunk[..<count])
        }
    }
}

/// POSIX read(2); at file scope because inside DirectoryTree `read` names the method.
private func readFile(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
