#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
import TLSFacts
#if canImport(Glibc)
import Glibc
#endif

/// One target as written by the user: a command-line argument or a line of the input.
struct AuditEntry: Sendable {
    /// 1-based line number in the input; nil for a command-line argument.
    let line: Int?
    /// 1-based position among all entries, arguments first (used to shard bad lines).
    let position: Int
    let text: String
    /// Why the line cannot be a target before it is even parsed (too long, not UTF-8).
    let defect: String?
}

/// Targets from the arguments, then from the input, one at a time: the input is never read
/// whole, so a 10,000-line file costs one buffer, not 10,000 strings.
final class AuditInput: @unchecked Sendable {
    /// Longer lines are reported as bad and skipped; no target is this long.
    static let maxLineBytes = 8192

    private var arguments: IndexingIterator<[String]>
    /// The input's file descriptor (standard input is not closed); nil reads the arguments only.
    private let descriptor: Int32?
    private let ownsDescriptor: Bool
    private let queue = DispatchQueue(label: "atsprobe.audit.input")
    private var buffer: [UInt8] = []
    private var atEnd = false
    private var lineNumber = 0
    private var position = 0

    /// `path` "-" is standard input; nil reads the arguments only.
    init(arguments: [String], path: String?) throws {
        self.arguments = arguments.makeIterator()
        switch path {
        case nil: descriptor = nil
        case "-": descriptor = STDIN_FILENO
        case let path?:
            let opened = open(path, O_RDONLY | O_CLOEXEC)
            guard opened >= 0 else {
                throw InputError("cannot read '\(UntrustedText.escape(path, limit: 400))': \(FileStream.systemError())")
            }
            descriptor = opened
        }
        ownsDescriptor = path != nil && path != "-"
    }

    deinit {
        if ownsDescriptor, let descriptor { close(descriptor) }
    }

    /// The next entry, skipping blank lines and `#` comments; nil at the end.
    func next() async -> AuditEntry? {
        if let argument = arguments.next() {
            position += 1
            return AuditEntry(line: nil, position: position, text: argument, defect: nil)
        }
        while let (number, bytes, tooLong) = await nextLine() {
            var text = String(decoding: bytes, as: UTF8.self)
            text = text.trimmingWhitespace()
            if !tooLong && (text.isEmpty || text.hasPrefix("#")) { continue }
            position += 1
            let defect = tooLong ? "line longer than \(Self.maxLineBytes) bytes"
                : (String(validating: bytes, as: UTF8.self) == nil ? "not UTF-8" : nil)
            return AuditEntry(line: number, position: position, text: text, defect: defect)
        }
        return nil
    }

    /// Whatever read(2) returns, up to 64 KiB: a pipe gives what has arrived (so lines typed or
    /// piped slowly are audited at once), a file its next chunk. Empty at the end or on error.
    static func read(_ fd: Int32) -> [UInt8] {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            return count > 0 ? Array(chunk[..<count]) : []
        }
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
            let chunk = await withCheckedContinuation { continuation in
                queue.async { continuation.resume(returning: Self.read(descriptor)) }
            }
            if chunk.isEmpty { atEnd = true } else { buffer.append(contentsOf: chunk) }
        }
    }
}

extension AuditInput {
    /// Lines to expect, for the progress bar only: arguments plus the file's newlines, counted
    /// in one streaming pass. Unknown for standard input.
    static func expectedCount(arguments: [String], path: String?) -> Int? {
        guard let path, path != "-" else { return path == nil ? arguments.count : nil }
        let file = open(path, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { return nil }
        defer { close(file) }
        var lines = arguments.count
        while true {
            let chunk = read(file)
            if chunk.isEmpty { return lines }
            lines += chunk.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
        }
    }
}
