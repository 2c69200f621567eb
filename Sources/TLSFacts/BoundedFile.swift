#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a whole file with POSIX calls, refusing more than `limit` bytes, so errors keep their
/// real cause (errno) and a wrong argument (a disk image, /dev/zero) cannot fill memory. Shared
/// by every file atsprobe reads whole: property lists, target lists, CT log lists.
public enum BoundedFile {
    public enum Failure: Error, Equatable {
        /// open, fstat or read failed with this errno (EISDIR for a directory).
        case system(Int32)
        /// More than `limit` bytes.
        case tooLarge
    }

    /// The bytes of `path`; "-" is standard input when `dashIsStandardInput`.
    public static func read(_ path: String, limit: Int, dashIsStandardInput: Bool = false) throws(Failure) -> [UInt8] {
        let fromStandardInput = dashIsStandardInput && path == "-"
        let descriptor = fromStandardInput ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .system(errno) }
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
}

/// POSIX read(2); at file scope because inside BoundedFile `read` names the static method.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
