#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file being replaced by output written as it comes (`FileReplacement.begin`): `stream`
/// writes the temporary; `commit()` flushes it and renames it over the file. Not committed (the
/// run failed before its end), the temporary is removed and the old file is left as it was.
package final class PendingReplacement: @unchecked Sendable {
    package let stream: FileStream
    /// nil for a device or FIFO, written through.
    private let temporary: String?
    private let target: String
    private let path: String
    private var done = false

    init(stream: FileStream, temporary: String?, target: String, path: String) {
        self.stream = stream
        self.temporary = temporary
        self.target = target
        self.path = path
    }

    /// Flushes and closes the temporary, then puts it in the file's place. Throws (and leaves the
    /// old file) when a write, the flush or the rename failed.
    package func commit() throws(InputError) {
        guard !done else { return }
        done = true
        guard let temporary else { return try stream.finish() }
        do throws(InputError) {
            if fsync(stream.descriptor) != 0 { stream.noteFailure(errno) }
            try stream.finish()
            guard rename(temporary, target) == 0 else { throw FileReplacement.failure(path, errno) }
        } catch {
            unlink(temporary)
            throw error
        }
        FileReplacement.syncDirectory(of: target)
    }

    deinit {
        guard !done, let temporary else { return }
        _ = try? stream.finish()
        unlink(temporary)
    }
}
