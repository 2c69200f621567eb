#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a whole file with POSIX calls, refusing more than `limit` bytes, so errors keep their
/// real cause (errno) and a wrong argument (a disk image, /dev/zero) cannot fill memory. Shared
/// by every file atsprobe reads whole: property lists, target lists, CT log lists, anchors.
///
/// Every path is type-checked before it is read (`open`): a regular file, or a pipe where the
/// caller allows one (`plist lint <(...)`). Devices and sockets are refused without reading, so
/// `--ca-dir /dev` or a stray FIFO cannot hang a run or wake a device. Read errors (EIO from
/// /proc/self/mem, a failing disk) are errors, never an early end of file.
package enum BoundedFile {
    package enum Failure: Error, Equatable {
        /// open, fstat or read failed with this errno (EISDIR for a directory).
        case system(Int32)
        /// More than `limit` bytes.
        case tooLarge
        /// Not a regular file: "a character device", "a named pipe", ...
        case notAFile(String)

        /// One line for an error message after the file's name.
        package var reason: String {
            switch self {
            case .system(let code): BoundedFile.describe(errno: code)
            case .tooLarge: "too large"
            case .notAFile(let kind): "is \(kind), not a file"
            }
        }
    }

    /// The bytes of `path`; "-" is standard input when `dashIsStandardInput`.
    package static func read(_ path: String, limit: Int, dashIsStandardInput: Bool = false,
                            allowPipes: Bool = true) throws(Failure) -> [UInt8] {
        let fromStandardInput = dashIsStandardInput && path == "-"
        let descriptor = fromStandardInput ? STDIN_FILENO : try open(path, allowPipes: allowPipes)
        defer { if !fromStandardInput { close(descriptor) } }

        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .system(errno) }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw .system(EISDIR) }
        if Int(info.st_size) > limit { throw .tooLarge }

        // st_size may be 0 or wrong for pipes and /proc files: read until EOF, bounded.
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .system(errno)
            }
            if count == 0 { return bytes }
            bytes += chunk[..<count]
            if bytes.count > limit { throw .tooLarge }
        }
    }

    /// Opens `path` for reading after checking its type: regular files always, pipes when
    /// `allowPipes`; EISDIR for a directory. The descriptor is blocking (the open itself is
    /// not, so a FIFO with no writer cannot hang it); the caller closes it.
    package static func open(_ path: String, allowPipes: Bool) throws(Failure) -> Int32 {
        var info = stat()
        guard stat(path, &info) == 0 else { throw .system(errno) }
        try check(info.st_mode, allowPipes: allowPipes)
        let descriptor = systemOpen(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw .system(errno) }
        // The path may have changed between stat and open: check what was opened.
        guard fstat(descriptor, &info) == 0 else { let code = errno; close(descriptor); throw .system(code) }
        do {
            try check(info.st_mode, allowPipes: allowPipes)
        } catch {
            close(descriptor)
            throw error
        }
        let flags = fcntl(descriptor, F_GETFL)
        if flags >= 0 { _ = fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) }
        return descriptor
    }

    /// True for a regular file (what `--ca-dir` reads; anything else in it is skipped).
    package static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    private static func check(_ mode: mode_t, allowPipes: Bool) throws(Failure) {
        switch mode & S_IFMT {
        case S_IFREG: return
        case S_IFDIR: throw .system(EISDIR)
        case S_IFIFO: if allowPipes { return } else { throw .notAFile("a named pipe") }
        case S_IFCHR: throw .notAFile("a character device")
        case S_IFBLK: throw .notAFile("a block device")
        case S_IFSOCK: throw .notAFile("a socket")
        default: throw .notAFile("not a regular file")
        }
    }

    /// strerror, with the common cases in plain words.
    /// True for the errno values that mean this machine ran out of something (descriptors,
    /// memory, buffers), not that the file is wrong: callers report them as a local failure
    /// (exit 70), never as bad input (issue 40, item 4).
    package static func isResourceExhaustion(errno code: Int32) -> Bool {
        [EMFILE, ENFILE, ENOMEM, ENOBUFS].contains(code)
    }

    /// True when this failure is the machine's (`isResourceExhaustion`), not the file's.
    package static func isResourceExhaustion(_ failure: Failure) -> Bool {
        if case .system(let code) = failure { return isResourceExhaustion(errno: code) }
        return false
    }

    package static func describe(errno code: Int32) -> String {
        switch code {
        case ENOENT: "no such file or directory"
        case EACCES: "permission denied"
        case EISDIR: "is a directory"
        case EPIPE: "broken pipe"
        default: String(cString: strerror(code))
        }
    }
}

/// POSIX read(2) and open(2); at file scope because inside BoundedFile the names are its methods.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

private func systemOpen(_ path: String, _ flags: Int32) -> Int32 {
    open(path, flags)
}
