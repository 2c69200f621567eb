internal import CZlib

/// Writes zip archives in memory for tests: stored or DEFLATE entries, Unix modes (symlinks),
/// and whatever names and sizes a hostile archive needs (traversal names, lying sizes).
package struct ZipWriter {
    package enum Method: Sendable { case stored, deflate }

    struct Central {
        var name: [UInt8], method: UInt16, crc: UInt32, compressed: UInt32, uncompressed: UInt32, offset: UInt32, mode: UInt32
        /// The real uncompressed size, in a ZIP64 extra field, when `uncompressed` is saturated.
        var zip64Size: UInt64?
    }

    package private(set) var bytes: [UInt8] = []
    private var central: [Central] = []

    package init() {}

    /// One entry. `declaredSize` overrides the uncompressed size written in the headers (a lie).
    /// `zip64`: the central directory's uncompressed size is 0xFFFFFFFF and the real one is in a
    /// ZIP64 extra field (0x0001), as `zip -fz` writes every entry.
    package mutating func add(_ name: String, _ data: [UInt8], method: Method = .deflate, mode: UInt32 = 0o100644,
                             declaredSize: Int? = nil, zip64: Bool = false) {
        let payload = method == .deflate ? ZipWriter.deflate(data) : data
        let crc = data.withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, uInt($0.count))) }
        var record = Central(name: Array(name.utf8), method: method == .deflate ? 8 : 0, crc: crc,
                             compressed: UInt32(payload.count), uncompressed: UInt32(declaredSize ?? data.count),
                             offset: UInt32(bytes.count), mode: mode)
        bytes += le32(0x0403_4B50) + le16(20) + le16(0x0800) + le16(record.method) + le16(0) + le16(0x21)
        bytes += le32(record.crc) + le32(record.compressed) + le32(record.uncompressed)
        bytes += le16(UInt16(record.name.count)) + le16(0) + record.name + payload
        if zip64 {
            record.zip64Size = UInt64(record.uncompressed)
            record.uncompressed = 0xFFFF_FFFF
        }
        central.append(record)
    }

    package mutating func addSymlink(_ name: String, to target: String) {
        add(name, Array(target.utf8), method: .stored, mode: 0o120777)
    }

    package mutating func addDirectory(_ name: String) {
        add(name.hasSuffix("/") ? name : name + "/", [], method: .stored, mode: 0o040755)
    }

    /// The archive: entries, central directory, end record. `zip64End`: a ZIP64 end record and
    /// locator, and the classic end record's directory offset saturated (0xFFFFFFFF), as `zip -fz`
    /// writes them.
    package func finished(zip64End: Bool = false) -> [UInt8] {
        var out = bytes
        let start = out.count
        for record in central {
            let extra = record.zip64Size.map { le16(0x0001) + le16(8) + le64($0) } ?? []
            out += le32(0x0201_4B50) + le16(0x0314) + le16(20) + le16(0x0800) + le16(record.method) + le16(0) + le16(0x21)
            out += le32(record.crc) + le32(record.compressed) + le32(record.uncompressed)
            out += le16(UInt16(record.name.count)) + le16(UInt16(extra.count)) + le16(0) + le16(0) + le16(0)
            out += le32(record.mode << 16) + le32(record.offset) + record.name + extra
        }
        let size = out.count - start
        if zip64End {
            let endRecord = out.count
            let count = le64(UInt64(central.count))
            out += le32(0x0606_4B50) + le64(44) + le16(0x031E) + le16(45) + le32(0) + le32(0) + count + count
            out += le64(UInt64(size)) + le64(UInt64(start))
            out += le32(0x0706_4B50) + le32(0) + le64(UInt64(endRecord)) + le32(1)
        }
        out += le32(0x0605_4B50) + le16(0) + le16(0) + le16(UInt16(central.count)) + le16(UInt16(central.count))
        out += le32(UInt32(size)) + le32(zip64End ? 0xFFFF_FFFF : UInt32(start)) + le16(0)
        return out
    }

    /// Raw DEFLATE at the best compression.
    static func deflate(_ data: [UInt8]) -> [UInt8] {
        var stream = z_stream()
        _ = deflateInit2_(&stream, 9, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        defer { deflateEnd(&stream) }
        var input = data
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(data.count))) + 64)
        input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                stream.next_in = inBuffer.baseAddress
                stream.avail_in = uInt(inBuffer.count)
                stream.next_out = outBuffer.baseAddress
                stream.avail_out = uInt(outBuffer.count)
                _ = CZlib.deflate(&stream, Z_FINISH)
            }
        }
        return Array(output[..<Int(stream.total_out)])
    }

    private func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    private func le64(_ v: UInt64) -> [UInt8] { le32(UInt32(v & 0xFFFF_FFFF)) + le32(UInt32(v >> 32)) }
    private func le32(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8(v >> 24)] }
}
