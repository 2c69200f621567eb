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

/// A file descriptor atsprobe writes to: standard output, standard error, or a file it created.
/// Plain write(2) rather than Foundation's FileHandle, which lives in the Foundation library that
/// atsprobe does not link. After a failed write (a full disk) the stream drops further output and
/// `finish()` reports the failure (every command's `guarded` checks standard output), so results
/// are never lost silently. A reader that goes away ends atsprobe by SIGPIPE, as it does `cat`;
/// when SIGPIPE is ignored the write fails with EPIPE instead, and that ends the run at once
/// (exit 64): nobody is left to read the results, so auditing on would only waste the servers'
/// time.
package final class FileStream: @unchecked Sendable {
    package static let standardOutput = FileStream(descriptor: STDOUT_FILENO, owned: false, name: "standard output")
    package static let standardError = FileStream(descriptor: STDERR_FILENO, owned: false, name: "standard error")

    package let descriptor: Int32
    /// Names the stream in errors: the path, or "standard output".
    package let name: String
    private let owned: Bool
    /// errno of the first failed write; later output is dropped.
    private var failure: Int32?

    package init(descriptor: Int32, owned: Bool, name: String) {
        self.descriptor = descriptor
        self.owned = owned
        self.name = name
    }

    /// Creates (or truncates) `path` for writing, for output that streams (audit --output) or a
    /// device. A new file gets 0666 less the umask; an existing one keeps its mode and owner.
    /// `name` is the path the user gave, for messages, when `path` is where it led.
    package convenience init(creating path: String, name: String? = nil) throws(InputError) {
        let shown = "'\(UntrustedText.escape(name ?? path, limit: 400))'"
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else { throw InputError(.fileAccess, "cannot write \(shown): \(FileStream.systemError())") }
        self.init(descriptor: descriptor, owned: true, name: shown)
    }

    /// Records a failure found outside `write` (fsync): `finish()` reports the first one.
    package func noteFailure(_ code: Int32) {
        if failure == nil { failure = code }
    }

    package func write(_ text: String) { write(Array(text.utf8)) }

    package func write(_ bytes: some Collection<UInt8>) {
        guard failure == nil, !bytes.isEmpty else { return }
        let all = Array(bytes)
        all.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let count = Glibc.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if count < 0 && errno == EINTR { continue }
                if count <= 0 {
                    let code = count < 0 ? errno : EIO
                    failure = code
                    if code == EPIPE { FileStream.endAfterBrokenPipe(name) }
                    return
                }
                offset += count
            }
        }
    }

    /// Reports the reader gone and exits 64 at once, from whichever thread wrote.
    private static func endAfterBrokenPipe(_ name: String) -> Never {
        let message = Array("atsprobe: cannot write \(name): \(systemError(EPIPE)) (the reader went away)\n".utf8)
        _ = message.withUnsafeBytes { Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
        exit(64)  // ExitStatus.usage: bad input (docs/exit-codes.md)
    }

    /// Closes a file atsprobe opened; throws when any write to the stream failed.
    package func finish() throws(InputError) {
        if owned, Glibc.close(descriptor) != 0, failure == nil { failure = errno }
        if let failure { throw InputError(.fileAccess, "cannot write \(name): \(FileStream.systemError(failure))") }
    }

    /// Replaces `path` with `bytes` atomically, keeping its mode and owner, through symlinks
    /// (FileReplacement), so a failure never leaves a half-written file (and --output may name
    /// the input).
    package static func writeAtomically(_ bytes: some Collection<UInt8>, to path: String) throws(InputError) {
        try FileReplacement.write(bytes, to: path)
    }

    /// Reads all of `path` ("-" is standard input), refusing more than `limit` bytes.
    package static func readAll(_ path: String, limit: Int, what: String = "") throws(InputError) -> [UInt8] {
        let name = "\(what)'\(UntrustedText.escape(path, limit: 400))'"
        do {
            return try BoundedFile.read(path, limit: limit, dashIsStandardInput: true)
        } catch {
            switch error {
            case .tooLarge: throw InputError(.fileAccess, "cannot read \(name): larger than \(limit) bytes")
            case .system(let code):
                throw InputError(.reading(outOfResources: BoundedFile.isResourceExhaustion(errno: code)), "cannot read \(name): \(systemError(code))")
            case .notAFile: throw InputError(.fileAccess, "cannot read \(name): \(error.reason)")
            }
        }
    }

    /// strerror(errno), with the common cases in plain words (the one table, `BoundedFile.describe`).
    package static func systemError(_ code: Int32 = errno) -> String { BoundedFile.describe(errno: code) }
}
