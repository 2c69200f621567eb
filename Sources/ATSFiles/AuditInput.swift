#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
import Synchronization
import TextSupport
import TLSFacts
#if canImport(Glibc)
import Glibc
#endif

/// One target as written by the user: a command-line argument or a line of the input.
package struct AuditEntry: Sendable {
    /// 1-based line number in the input; nil for a command-line argument.
    package let line: Int?
    /// 1-based position among all entries, arguments first (used to shard bad lines).
    package let position: Int
    package let text: String
    /// Why the line cannot be a target before it is even parsed (too long, not UTF-8).
    package let defect: String?

    /// `text` with the password of a URL's userinfo redacted (`UntrustedText.redactingPassword`):
    /// every output that names the entry (the record's `input`, stderr, the metrics' label) names it so.
    package init(line: Int?, position: Int, text: String, defect: String?) {
        self.line = line
        self.position = position
        self.text = UntrustedText.redactingPassword(text)
        self.defect = defect
    }
}

/// Targets from the arguments, then from the input, one at a time: the input is never read
/// whole, so a 10,000-line file costs one buffer, not 10,000 strings.
package final class AuditInput: @unchecked Sendable {
    /// Longer lines are reported as bad and skipped; no target is this long.
    package static let maxLineBytes = 8192

    private var arguments: IndexingIterator<[String]>
    /// The input's file descriptor (standard input is not closed); nil reads the arguments only.
    private let descriptor: Int32?
    private let ownsDescriptor: Bool
    private let queue = DispatchQueue(label: "atsprobe.audit.input")
    private var buffer: [UInt8] = []
    private var atEnd = false
    private var lineNumber = 0
    private var position = 0
    private let path: String?
    /// How messages name the file: "--input" from the command line.
    private let source: String
    /// Set when reading the input failed (EIO, ...): the run ends with exit 64 naming it.
    package private(set) var failure: InputError?
    /// A named pipe whose writer may not have opened it yet: read(2) would say "end" at once
    /// (no writer), so the first read waits for one (`waitForWriter`). Cleared after that read.
    private var awaitsWriter = false

    /// `path` "-" is standard input; nil reads the arguments only. `option` is how messages name
    /// the file (the command line's "--input"; without one, "the target list").
    package init(arguments: [String], path: String?, option: String? = nil) throws {
        let source = option ?? "the target list"
        self.arguments = arguments.makeIterator()
        switch path {
        case nil: descriptor = nil
        case "-": descriptor = STDIN_FILENO
        case let path?:
            // A regular file or a pipe (`--input <(...)`); a directory or device is refused here,
            // before any target runs, as `diagnose --input` refuses it.
            do {
                descriptor = try BoundedFile.open(path, allowPipes: true)
            } catch {
                throw InputError(.reading(outOfResources: BoundedFile.isResourceExhaustion(error)), "cannot read \(source) '\(UntrustedText.escape(path, limit: 400))': \(error.reason)")
            }
        }
        self.path = path
        self.source = source
        ownsDescriptor = path != nil && path != "-"
        if ownsDescriptor, let descriptor {
            var info = stat()
            awaitsWriter = fstat(descriptor, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO
        }
    }

    deinit {
        if ownsDescriptor, let descriptor { close(descriptor) }
    }

    /// The next entry, skipping blank lines and `#` comments; nil at the end.
    package func next() async -> AuditEntry? {
        if let argument = arguments.next() {
            position += 1
            return AuditEntry(line: nil, position: position, text: argument, defect: nil)
        }
        while let (number, rawBytes, tooLong) = await nextLine() {
            // A byte-order mark (Windows editors write one) is not part of the first target.
            let bytes = number == 1 && rawBytes.starts(with: Self.byteOrderMark) ? rawBytes.dropFirst(3) : rawBytes
            let line = String(decoding: bytes, as: UTF8.self)
            // The same comment rule as `diagnose --input` (TargetLine).
            guard let text = tooLong ? line.trimmingWhitespace() : TargetLine.content(line) else { continue }
            position += 1
            let defect = tooLong ? "line longer than \(Self.maxLineBytes) bytes"
                : (String(validating: bytes, as: UTF8.self) == nil ? "not UTF-8" : nil)
            return AuditEntry(line: number, position: position, text: text, defect: defect)
        }
        return nil
    }

    package static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// Whatever read(2) returns, up to 64 KiB: a pipe gives what has arrived (so lines typed or
    /// piped slowly are audited at once), a file its next chunk. Empty at the end; the errno
    /// on a read error, which is never taken for the end of the input.
    package static func read(_ fd: Int32) -> Result<[UInt8], Int32Error> {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { return .failure(Int32Error(code: errno)) }
            return .success(Array(chunk[..<count]))
        }
    }

    package struct Int32Error: Error { let code: Int32 }

    /// Blocks until the named pipe `fd` has had a writer: its data, or its writer's close, is
    /// then what read(2) says. A FIFO opened for reading before any writer reads as empty at
    /// once; poll(2) waits instead (Linux reports POLLHUP only once a writer has come and gone).
    /// The wait ends with the run (its cancellation resumes the reader without it).
    package static func waitForWriter(_ fd: Int32) {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while poll(&entry, 1, -1) < 0 && errno == EINTR {}
    }

    /// The next raw line and whether it was cut short. Reads happen on a private queue so a
    /// slow pipe never blocks Swift's cooperative threads.
    private func nextLine() async -> (Int, ArraySlice<UInt8>, Bool)? {
        guard let descriptor else { return nil }
        var tooLong = false
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = tooLong ? buffer[0..<0] : buffer[..<newline]
                defer { buffer.removeSubrange(...newline) }
                lineNumber += 1
                return (lineNumber, ArraySlice(line), tooLong)
            }
            if buffer.count > Self.maxLineBytes {
                // Keep a prefix for the error message only; drop the rest of the line as it comes.
                tooLong = true
                buffer.removeAll(keepingCapacity: true)
            }
            if atEnd {
                guard !buffer.isEmpty || tooLong else { return nil }
                lineNumber += 1
                defer { buffer.removeAll() }
                return (lineNumber, ArraySlice(buffer), tooLong)
            }
            let pending = PendingRead()
            let waitsForWriter = awaitsWriter
            awaitsWriter = false
            let chunk: Result<[UInt8], Int32Error>? = await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Result<[UInt8], Int32Error>?, Never>) in
                    let resume = ResumeOnce(continuation)
                    pending.once.withLock { $0 = resume }
                    if Task.isCancelled { resume.resume(nil) }
                    queue.async {
                        if waitsForWriter { Self.waitForWriter(descriptor) }
                        resume.resume(Self.read(descriptor))
                    }
                }
            } onCancel: {
                pending.once.withLock { $0 }?.resume(nil)
            }
            switch chunk {
            case nil:  // the run was cancelled: no more lines
                atEnd = true
                buffer.removeAll()
                return nil
            case .success(let bytes)? where bytes.isEmpty: atEnd = true
            case .success(let bytes)?: buffer.append(contentsOf: bytes)
            case .failure(let error)?:
                let name = path == "-" ? "standard input" : "\(source) '\(UntrustedText.escape(path ?? "", limit: 400))'"
                failure = InputError(.fileAccess, "cannot read \(name): \(FileStream.systemError(error.code))")
                atEnd = true
                buffer.removeAll()
                return nil
            }
        }
    }
}

extension AuditInput {
    /// Targets to expect, for the progress bar only: arguments plus the file's target lines,
    /// counted in one streaming pass. Unknown for standard input.
    package static func expectedCount(arguments: [String], path: String?) -> Int? {
        guard let path, path != "-" else { return path == nil ? arguments.count : nil }
        // Only a regular file can be read twice; a pipe's lines are for the audit.
        guard BoundedFile.isRegularFile(path), let file = try? BoundedFile.open(path, allowPipes: false) else { return nil }
        defer { close(file) }
        // Targets, not lines (issue 25): blank lines and comments are skipped by the same rule
        // the audit reads with (TargetLine), so the bar ends at N/N.
        var targets = arguments.count
        var line: [UInt8] = []
        var cut = false, first = true
        func endLine() {
            let bytes = first && line.starts(with: byteOrderMark) ? Array(line.dropFirst(3)) : line
            if cut || TargetLine.content(String(decoding: bytes, as: UTF8.self)) != nil { targets += 1 }
            line.removeAll(keepingCapacity: true)
            cut = false
            first = false
        }
        while true {
            guard case .success(let chunk) = read(file) else { return nil }
            if chunk.isEmpty {
                if !line.isEmpty || cut { endLine() }
                return targets
            }
            for byte in chunk {
                if byte == UInt8(ascii: "\n") {
                    endLine()
                } else if line.count < maxLineBytes {
                    line.append(byte)
                } else {
                    cut = true
                }
            }
        }
    }
}

/// One read of the input, resumed once: by the read, or by the run's cancellation.
private final class PendingRead: Sendable {
    package let once = Mutex<ResumeOnce<Result<[UInt8], AuditInput.Int32Error>?>?>(nil)
}
