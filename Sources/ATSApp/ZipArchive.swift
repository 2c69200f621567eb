internal import CZlib
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TextSupport
import TLSFacts

/// A bounded, read-only zip reader (PKWARE APPNOTE 6.3.x, the subset .ipa files use: stored
/// and DEFLATE entries, no ZIP64, no encryption; names of at most 1,024 bytes and 64 levels)
/// over the system zlib. Entries are read in place with pread and inflated in memory; nothing
/// is extracted. Every bound is checked
/// from the central directory before any entry is inflated, and again while inflating: an
/// entry may not inflate past the size it declares (docs/app.md, "Hostile archives").
///
/// Why not ZIPFoundation: it imports Foundation, which would bring libFoundation and the
/// ICU data into every run (docs/design.md, "Reading .ipa archives").
package final class ZipArchive: FileTree {
    package let source: String
    package private(set) var entries: [TreeEntry] = []
    private let descriptor: Int32
    private let fileSize: Int
    private let limits: ArchiveLimits
    /// Where each file entry's local header is, and how it is stored.
    private var records: [String: Record] = [:]

    struct Record {
        var method: UInt16
        var flags: UInt16
        var crc32: UInt32
        var compressedSize: Int
        var uncompressedSize: Int
        var localHeaderOffset: Int
    }

    package init(path: String, limits: ArchiveLimits = ArchiveLimits()) throws(AppReadError) {
        source = path
        self.limits = limits
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw AppReadError(.unreadable, path: path, problem: "cannot open: \(String(cString: strerror(errno)))") }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            close(fd)
            throw AppReadError(.unreadable, path: path, problem: "cannot read: \(String(cString: strerror(errno)))")
        }
        descriptor = fd
        fileSize = Int(info.st_size)
        try readCentralDirectory()
    }

    deinit { close(descriptor) }

    /// Why a ZIP64 archive is refused, and how to make one this reader takes.
    static let zip64Refusal = "ZIP64 is not supported (re-create the archive without it, e.g. zip -fz-)"

    private func fail(_ code: AppReadError.Code, _ problem: String) -> AppReadError { AppReadError(code, path: source, problem: problem) }

    /// Bytes at `offset`, exactly `count` of them, or a "truncated" error.
    private func bytes(at offset: Int, count: Int) throws(AppReadError) -> [UInt8] {
        guard offset >= 0, count >= 0, offset <= fileSize, count <= fileSize - offset else {
            throw fail(.notAnArchive, "not a zip archive (truncated or damaged)")
        }
        var buffer = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + done, count - done, off_t(offset + done)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw fail(.unreadable, "cannot read: \(n < 0 ? String(cString: strerror(errno)) : "unexpected end of file")") }
            done += n
        }
        return buffer
    }

    private func readCentralDirectory() throws(AppReadError) {
        // The end-of-central-directory record: 22 bytes plus a comment of up to 65,535.
        let tailLength = min(fileSize, 22 + 65_535)
        let tail = try bytes(at: fileSize - tailLength, count: tailLength)
        guard tailLength >= 22, let eocd = stride(from: tailLength - 22, through: 0, by: -1).first(where: {
            tail.le32($0) == 0x0605_4B50
        }) else { throw fail(.notAnArchive, "not a zip archive (no end of central directory)") }
        let total = Int(tail.le16(eocd + 10))
        let directorySize = Int(tail.le32(eocd + 12))
        let directoryOffset = Int(tail.le32(eocd + 16))
        // A saturated field means the real value is in a ZIP64 record (APPNOTE 4.4.1.4): over
        // 65,535 entries or 4 GiB, or `zip -fz`, which writes ZIP64 records whatever the sizes.
        if total == 0xFFFF || directorySize == 0xFFFF_FFFF || directoryOffset == 0xFFFF_FFFF {
            throw fail(.unsupported, ZipArchive.zip64Refusal)
        }
        // Refused before the directory is read: a 10,000-entry archive costs 22 bytes of reading.
        guard total <= limits.maximumEntries else {
            throw fail(.limitExceeded, "\(total) entries, more than the limit of \(limits.maximumEntries) (the entry limit can be raised)")
        }
        guard directorySize <= total * (46 + 3 * 65_535), directoryOffset + directorySize <= fileSize - tailLength + eocd else {
            throw fail(.notAnArchive, "not a zip archive (central directory out of bounds)")
        }
        let directory = try bytes(at: directoryOffset, count: directorySize)

        var cursor = 0, declaredTotal = 0
        var seen = Set<String>()
        var spans: [(start: Int, end: Int, name: String)] = []
        for _ in 0..<total {
            guard cursor + 46 <= directory.count, directory.le32(cursor) == 0x0201_4B50 else {
                throw fail(.notAnArchive, "not a zip archive (damaged central directory)")
            }
            let madeBy = directory.le16(cursor + 4)
            let record = Record(method: directory.le16(cursor + 10), flags: directory.le16(cursor + 8),
                                crc32: directory.le32(cursor + 16), compressedSize: Int(directory.le32(cursor + 20)),
                                uncompressedSize: Int(directory.le32(cursor + 24)),
                                localHeaderOffset: Int(directory.le32(cursor + 42)))
            let nameLength = Int(directory.le16(cursor + 28))
            let extraLength = Int(directory.le16(cursor + 30)), commentLength = Int(directory.le16(cursor + 32))
            let externalAttributes = directory.le32(cursor + 38)
            guard cursor + 46 + nameLength <= directory.count else { throw fail(.notAnArchive, "not a zip archive (damaged central directory)") }
            let nameBytes = directory[(cursor + 46)..<(cursor + 46 + min(nameLength, limits.maximumNameBytes + 1))]
            let rawName = String(decoding: nameBytes, as: UTF8.self)
            let shown = UntrustedText.escape(rawName, limit: 200)
            // Sizes or the offset saturated: the real values are in a ZIP64 extra field (0x0001),
            // which this reader does not read; without this check a 4,294,967,295-byte size
            // would be reported as if it were real.
            if record.compressedSize == 0xFFFF_FFFF || record.uncompressedSize == 0xFFFF_FFFF
                || record.localHeaderOffset == 0xFFFF_FFFF || directory.le16(cursor + 34) == 0xFFFF {
                throw fail(.unsupported, "entry '\(shown)': \(ZipArchive.zip64Refusal)")
            }
            cursor += 46 + nameLength + extraLength + commentLength

            // Bounded before the name is split: every ancestor of an entry becomes a directory of
            // the index (AppReader), so an unbounded name costs its length times its depth.
            guard nameLength <= limits.maximumNameBytes else {
                throw fail(.limitExceeded, "entry '\(shown)' has a name of \(nameLength) bytes, more than the limit of \(limits.maximumNameBytes); refused")
            }
            guard let parts = TreePath.components(rawName), !parts.isEmpty else {
                throw fail(.unsafeEntry, "entry '\(shown)' points outside the archive (path traversal); refused")
            }
            guard parts.count <= limits.maximumDepth else {
                throw fail(.limitExceeded, "entry '\(shown)' is nested \(parts.count) deep, more than the limit of \(limits.maximumDepth); refused")
            }
            let path = parts.joined(separator: "/")
            guard seen.insert(path).inserted else { throw fail(.unsafeEntry, "entry '\(shown)' appears twice; refused") }
            guard record.uncompressedSize <= limits.maximumEntrySize, record.compressedSize <= limits.maximumEntrySize else {
                throw fail(.limitExceeded, "entry '\(shown)' is \(record.uncompressedSize) bytes uncompressed, more than the limit of \(limits.maximumEntrySize); refused")
            }
            declaredTotal += record.uncompressedSize
            guard declaredTotal <= limits.maximumTotalSize else {
                throw fail(.limitExceeded, "more than \(limits.maximumTotalSize) bytes uncompressed in all; refused")
            }
            if record.uncompressedSize > limits.ratioFloor,
               record.uncompressedSize / max(record.compressedSize, 1) > limits.maximumRatio {
                throw fail(.unsafeEntry, "entry '\(shown)' expands \(record.uncompressedSize / max(record.compressedSize, 1)):1 (a zip bomb?), more than the limit of \(limits.maximumRatio):1; refused")
            }
            spans.append((record.localHeaderOffset, record.localHeaderOffset + 30 + record.compressedSize, shown))

            // Unix mode in the high 16 bits when the archive was made on Unix (madeBy 3).
            let mode = (madeBy >> 8) == 3 ? externalAttributes >> 16 : 0
            if mode & 0o170000 == 0o120000 {
                guard record.compressedSize <= 4096, record.uncompressedSize <= 4096 else { throw fail(.limitExceeded, "symlink '\(shown)' is too long; refused") }
                records[path] = record
                let target = String(decoding: try inflate(record, name: shown, limit: 4096), as: UTF8.self)
                entries.append(TreeEntry(path: path, kind: .symlink(target: target), size: 0))
            } else if rawName.hasSuffix("/") || mode & 0o170000 == 0o040000 {
                entries.append(TreeEntry(path: path, kind: .directory, size: 0))
            } else {
                records[path] = record
                entries.append(TreeEntry(path: path, kind: .file, size: record.uncompressedSize))
            }
        }
        // Entries sharing bytes are how the densest zip bombs (overlapping files) work; real
        // archives never overlap.
        spans.sort { $0.start < $1.start }
        for (a, b) in zip(spans, spans.dropFirst()) where a.end > b.start {
            throw fail(.unsafeEntry, "entries '\(a.name)' and '\(b.name)' overlap (a zip bomb?); refused")
        }
        if let last = spans.last, last.end > directoryOffset {
            throw fail(.unsafeEntry, "entry '\(last.name)' runs into the central directory; refused")
        }
    }

    package func read(_ entry: TreeEntry, limit: Int) throws(AppReadError) -> [UInt8] {
        guard let record = records[entry.path] else { throw fail(.missingEntry, "no file '\(UntrustedText.escape(entry.path, limit: 200))' in the archive") }
        return try inflate(record, name: UntrustedText.escape(entry.path, limit: 200), limit: limit)
    }

    package func stream(_ entry: TreeEntry, limit: Int, _ body: (ArraySlice<UInt8>) -> Void) throws(AppReadError) {
        guard let record = records[entry.path] else { throw fail(.missingEntry, "no file '\(UntrustedText.escape(entry.path, limit: 200))' in the archive") }
        try stream(record, name: UntrustedText.escape(entry.path, limit: 200), limit: limit, body)
    }

    private func inflate(_ record: Record, name: String, limit: Int) throws(AppReadError) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(min(record.uncompressedSize, limit))
        try stream(record, name: name, limit: limit) { output += $0 }
        return output
    }

    /// The entry's bytes in pieces of at most `piece` (1 MiB): the compressed data is read and
    /// inflated piece by piece, so an executable of hundreds of megabytes is never held whole.
    /// One byte past the declared size is a refusal, whatever the stream would go on to
    /// produce; the CRC-32 is checked at the end.
    private func stream(_ record: Record, name: String, limit: Int, piece: Int = 1 << 20,
                        _ body: (ArraySlice<UInt8>) -> Void) throws(AppReadError) {
        guard record.flags & 1 == 0 else { throw fail(.unsupported, "entry '\(name)' is encrypted; refused") }
        guard record.uncompressedSize <= limit else {
            throw fail(.limitExceeded, "entry '\(name)' is \(record.uncompressedSize) bytes, more than the limit of \(limit)")
        }
        let header = try bytes(at: record.localHeaderOffset, count: 30)
        guard header.le32(0) == 0x0403_4B50 else { throw fail(.damagedEntry, "entry '\(name)' has no local header (damaged archive)") }
        let dataStart = record.localHeaderOffset + 30 + Int(header.le16(26)) + Int(header.le16(28))
        var crc: uLong = 0
        func take(_ chunk: ArraySlice<UInt8>) {
            crc = chunk.withUnsafeBufferPointer { crc32(crc, $0.baseAddress, uInt($0.count)) }
            body(chunk)
        }

        switch record.method {
        case 0:
            guard record.compressedSize == record.uncompressedSize else { throw fail(.damagedEntry, "entry '\(name)': stored sizes disagree (damaged archive)") }
            var offset = 0
            while offset < record.compressedSize {
                let count = min(piece, record.compressedSize - offset)
                take(try bytes(at: dataStart + offset, count: count)[...])
                offset += count
            }
        case 8:
            var stream = z_stream()
            guard inflateInit2_(&stream, -15, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
                throw fail(.outOfMemory, "zlib could not start (out of memory?)")
            }
            defer { inflateEnd(&stream) }
            var output = [UInt8](repeating: 0, count: piece)
            var consumed = 0, produced = 0
            var status = Z_OK
            while status != Z_STREAM_END {
                guard consumed < record.compressedSize else { throw fail(.damagedEntry, "entry '\(name)' is not valid DEFLATE data (damaged archive)") }
                var input = try bytes(at: dataStart + consumed, count: min(piece, record.compressedSize - consumed))
                consumed += input.count
                var overrun = false
                input.withUnsafeMutableBufferPointer { inBuffer in
                    stream.next_in = inBuffer.baseAddress
                    stream.avail_in = uInt(inBuffer.count)
                    repeat {
                        let made: Int = output.withUnsafeMutableBufferPointer { outBuffer in
                            stream.next_out = outBuffer.baseAddress
                            stream.avail_out = uInt(outBuffer.count)
                            status = CZlib.inflate(&stream, Z_NO_FLUSH)
                            return outBuffer.count - Int(stream.avail_out)
                        }
                        produced += made
                        if produced > record.uncompressedSize { overrun = true; return }
                        if made > 0 { take(output[..<made]) }
                    } while status == Z_OK && (stream.avail_in > 0 || stream.avail_out == 0)
                    stream.next_in = nil
                }
                if overrun { throw fail(.unsafeEntry, "entry '\(name)' inflates past its declared \(record.uncompressedSize) bytes (a zip bomb?); refused") }
                guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                    throw fail(.damagedEntry, "entry '\(name)' is not valid DEFLATE data (damaged archive)")
                }
            }
            guard produced == record.uncompressedSize else {
                throw fail(.damagedEntry, "entry '\(name)' inflates to \(produced) bytes, not the \(record.uncompressedSize) it declares (damaged archive)")
            }
        default:
            throw fail(.unsupported, "entry '\(name)' uses compression method \(record.method); only stored and DEFLATE are read")
        }
        guard UInt32(crc) == record.crc32 else { throw fail(.damagedEntry, "entry '\(name)' fails its CRC-32 check (damaged archive)") }
    }
}

extension [UInt8] {
    func le16(_ at: Int) -> UInt16 { UInt16(self[at]) | UInt16(self[at + 1]) << 8 }
    func le32(_ at: Int) -> UInt32 {
        UInt32(self[at]) | UInt32(self[at + 1]) << 8 | UInt32(self[at + 2]) << 16 | UInt32(self[at + 3]) << 24
    }
}
