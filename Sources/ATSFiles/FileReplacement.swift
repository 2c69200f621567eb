#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TextSupport
import TLSFacts

/// Replacing a file as a careful tool does (docs/robustness.md, "Files"; issue 24):
/// - a symlink is followed to the file it names, and that file is replaced, never the link;
/// - the new content goes to a temporary file beside the target, is flushed (fsync), and is then
///   renamed over the target, so the old content stays whole until the new one is (a full disk
///   fails the write, never the old file);
/// - a replaced file keeps its permission bits and its owner and group (where this user may set
///   them; otherwise set-user-ID and set-group-ID are dropped); a new file gets 0666 less the
///   umask, as any file a program creates;
/// - the temporary's name is short and fixed in length (`.atsprobe-` and 12 random letters), so
///   a target whose name is at NAME_MAX (255 bytes) can still be replaced.
/// What a rename cannot keep: hard links to the old file (they keep the old content), ACLs and
/// extended attributes.
package enum FileReplacement {
    /// Linux's bound on symlinks followed in one lookup (MAXSYMLINKS, fs/namei.c).
    package static let maximumLinks = 40

    /// The path `path` ends at once its symlinks are followed: the file a write replaces.
    /// A dangling link resolves to the missing file it names (which the write then creates).
    package static func resolve(_ path: String) throws(InputError) -> String {
        var current = path
        for _ in 0..<maximumLinks {
            var info = stat()
            guard lstat(current, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { return current }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink(current, &buffer, Int(PATH_MAX))
            guard count > 0 else { throw failure(path, errno) }
            let target = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current = target.hasPrefix("/") ? target : directory(of: current) + "/" + target
        }
        throw failure(path, ELOOP)
    }

    /// The directory holding `path` ("." for a bare name).
    package static func directory(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "." }
        return slash == path.utf8.startIndex ? "/" : String(path[..<slash])
    }

    /// Replaces the file `path` names with `bytes` (see the type's comment). Devices and FIFOs
    /// (/dev/stdout, a named pipe) are written through, since renaming over one would replace it.
    package static func write(_ bytes: some Collection<UInt8>, to path: String) throws(InputError) {
        // What the path leads to, as open(2) would follow it: /dev/stdout's link through
        // /proc/self/fd names a pipe, not a path, so devices and pipes are opened as given.
        var info = stat()
        if stat(path, &info) == 0 {
            switch info.st_mode & S_IFMT {
            case S_IFREG: break
            case S_IFDIR: throw failure(path, EISDIR)
            default:
                let stream = try FileStream(creating: path)
                stream.write(bytes)
                try stream.finish()
                return
            }
        } else if errno != ENOENT {
            throw failure(path, errno)
        }
        let target = try resolve(path)
        let exists = stat(target, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
        let (descriptor, temporary) = try createTemporary(beside: target, private: exists, for: path)
        let file = FileStream(descriptor: descriptor, owned: true, name: "'\(UntrustedText.escape(path, limit: 400))'")
        do throws(InputError) {
            if exists { try keepOwnerAndMode(info, descriptor: descriptor, for: path) }
            file.write(bytes)
            if fsync(descriptor) != 0 { file.noteFailure(errno) }
            try file.finish()
            guard rename(temporary, target) == 0 else { throw failure(path, errno) }
        } catch {
            unlink(temporary)
            throw error
        }
        syncDirectory(of: target)
    }

    /// Starts replacing `path` with output that is written as it comes (audit's --output): the
    /// stream writes a temporary beside the file `path` leads to, and `commit()` renames it over
    /// the file, so until then the old file stays whole (an interrupt that ends the run writes
    /// what finished and commits; a crash or SIGKILL leaves the old file). Devices and FIFOs are
    /// written through, as `write` does.
    package static func begin(_ path: String) throws(InputError) -> PendingReplacement {
        var info = stat()
        if stat(path, &info) == 0 {
            switch info.st_mode & S_IFMT {
            case S_IFREG: break
            case S_IFDIR: throw failure(path, EISDIR)
            default: return PendingReplacement(stream: try FileStream(creating: path), temporary: nil, target: path, path: path)
            }
        } else if errno != ENOENT {
            throw failure(path, errno)
        }
        let target = try resolve(path)
        let exists = stat(target, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
        let (descriptor, temporary) = try createTemporary(beside: target, private: exists, for: path)
        let stream = FileStream(descriptor: descriptor, owned: true, name: "'\(UntrustedText.escape(path, limit: 400))'")
        if exists {
            do throws(InputError) { try keepOwnerAndMode(info, descriptor: descriptor, for: path) } catch {
                _ = try? stream.finish()
                unlink(temporary)
                throw error
            }
        }
        return PendingReplacement(stream: stream, temporary: temporary, target: target, path: path)
    }

    /// A new file beside `target`, opened exclusively: 0600 while it stands in for an existing
    /// file (its own mode is set from the old one before the rename), 0666 less the umask when it
    /// will be a new file (the kernel applies the umask, and any default ACL, at creation).
    private static func createTemporary(beside target: String, private: Bool, for path: String) throws(InputError) -> (Int32, String) {
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        var generator = SystemRandomNumberGenerator()
        let directory = directory(of: target)
        for _ in 0..<16 {
            let suffix = String((0..<12).map { _ in letters[Int(generator.next(upperBound: UInt(letters.count)))] })
            let temporary = directory + "/.atsprobe-" + suffix
            let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, `private` ? 0o600 : 0o666)
            if descriptor >= 0 { return (descriptor, temporary) }
            if errno != EEXIST { throw failure(path, errno) }
        }
        throw failure(path, EEXIST)
    }

    /// The old file's owner, group and permission bits on the temporary. Changing the owner needs
    /// privilege (CAP_CHOWN); the group, membership. Whatever cannot be kept, set-ID bits are not
    /// kept either: they would grant the old owner's rights to this user's file.
    private static func keepOwnerAndMode(_ old: stat, descriptor: Int32, for path: String) throws(InputError) {
        var mode = old.st_mode & 0o7777
        let ownerKept = fchown(descriptor, old.st_uid, old.st_gid) == 0 || (geteuid() == old.st_uid && fchown(descriptor, uid_t.max, old.st_gid) == 0)
        if !ownerKept { mode &= ~mode_t(0o6000) }
        guard fchmod(descriptor, mode) == 0 else { throw failure(path, errno) }
    }

    /// The rename is durable once the directory is flushed; a failure here loses nothing (the
    /// file is whole either way), so it is not reported.
    static func syncDirectory(of path: String) {
        let descriptor = open(directory(of: path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }

    package static func failure(_ path: String, _ code: Int32) -> InputError {
        InputError(.fileAccess, "cannot write '\(UntrustedText.escape(path, limit: 400))': \(FileStream.systemError(code))")
    }
}

/// An advisory lock (flock(2), exclusive) on the file a path names, held until `release()`: how
/// two `--merge X --output X` runs take turns, each re-reading X once it holds the lock. The
/// lock is on the file, and a replacement is a new file (a rename), so after locking, the path
/// must still name the locked file; if another run replaced it meanwhile, the new file is locked
/// instead. Waiting is bounded: another process may hold the lock forever.
package final class FileLock {
    private var descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    /// Locks the file `path` names (symlinks followed), waiting at most `timeout` seconds.
    package static func acquire(_ path: String, timeout: Double = 60) throws(InputError) -> FileLock {
        let target = try FileReplacement.resolve(path)
        let name = "'\(UntrustedText.escape(path, limit: 400))'"
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let deadline = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9 + timeout
        // Each turn of this loop follows a replacement by another process, each turn of the inner
        // one waits 20 ms: both end by the deadline.
        while true {
            clock_gettime(CLOCK_MONOTONIC, &now)
            guard Double(now.tv_sec) + Double(now.tv_nsec) / 1e9 < deadline else {
                throw InputError(.locked, "cannot lock \(name): replaced by other processes for \(Int(timeout)) s")
            }
            let descriptor = open(target, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
            guard descriptor >= 0 else { throw InputError(.fileAccess, "cannot lock \(name): \(FileStream.systemError())") }
            while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
                let code = errno
                guard code == EWOULDBLOCK || code == EINTR else {
                    close(descriptor)
                    throw InputError(.fileAccess, "cannot lock \(name): \(FileStream.systemError(code))")
                }
                clock_gettime(CLOCK_MONOTONIC, &now)
                guard Double(now.tv_sec) + Double(now.tv_nsec) / 1e9 < deadline else {
                    close(descriptor)
                    throw InputError(.locked, "cannot lock \(name): another process has held it for \(Int(timeout)) s")
                }
                // A poll rather than a blocking flock, so the wait has a deadline.
                var pause = timespec(tv_sec: 0, tv_nsec: 20_000_000)
                _ = nanosleep(&pause, nil)
            }
            var locked = stat(), named = stat()
            if fstat(descriptor, &locked) == 0, stat(target, &named) == 0,
               locked.st_dev == named.st_dev, locked.st_ino == named.st_ino {
                return FileLock(descriptor: descriptor)
            }
            close(descriptor)  // replaced while we waited: lock the new file
        }
    }

    /// Whether two paths name the same existing file (symlinks followed).
    package static func sameFile(_ a: String, _ b: String) -> Bool {
        var first = stat(), second = stat()
        return stat(a, &first) == 0 && stat(b, &second) == 0 && first.st_dev == second.st_dev && first.st_ino == second.st_ino
    }

    package func release() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
    }

    deinit { release() }
}
