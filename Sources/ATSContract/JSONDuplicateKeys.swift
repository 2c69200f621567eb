/// A key held twice in one JSON object. RFC 8259 (section 4) leaves such an object's meaning to
/// each reader: Foundation's JSONDecoder read the first value, jq and Python read the last, so a
/// record with `"verdict"` twice said one thing to atsprobe and another to every script beside
/// it (issue 40). The reader refuses such a record (`ReportReader`).
package enum JSONDuplicateKeys {
    /// The first key some object of `bytes` holds twice (compared as the decoder compares keys:
    /// escapes decoded, canonically equivalent strings equal), and the byte offset of its second
    /// occurrence; nil when every object's keys differ. Reads valid JSON; on anything else it
    /// returns what it found so far, without trapping (the decoder says what is wrong).
    package static func first(in bytes: ArraySlice<UInt8>) -> (key: String, offset: Int)? {
        // One entry per open container: the keys seen so far in an object, nil for an array.
        var open: [Set<String>?] = []
        var expectingKey = false
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "{"):
                open.append([])
                expectingKey = true
            case UInt8(ascii: "["):
                open.append(nil)
                expectingKey = false
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if !open.isEmpty { open.removeLast() }
                expectingKey = false
            case UInt8(ascii: ","):
                expectingKey = open.last.map { $0 != nil } ?? false
            case UInt8(ascii: ":"):
                expectingKey = false
            case UInt8(ascii: "\""):
                let start = index
                var end = bytes.index(after: index)
                var escaped = false
                while end < bytes.endIndex {
                    let b = bytes[end]
                    if b == UInt8(ascii: "\\") { escaped = true; end = bytes.index(end, offsetBy: min(2, bytes.endIndex - end)); continue }
                    if b == UInt8(ascii: "\"") || b == 0x0A { break }
                    end = bytes.index(after: end)
                }
                if expectingKey, !open.isEmpty, open[open.count - 1] != nil {
                    let raw = bytes[bytes.index(after: start)..<min(end, bytes.endIndex)]
                    let key = escaped ? unescape(raw) : String(decoding: raw, as: UTF8.self)
                    if open[open.count - 1]?.insert(key).inserted == false { return (key, start - bytes.startIndex) }
                }
                expectingKey = false
                index = end
            default:
                break
            }
            if index < bytes.endIndex { index = bytes.index(after: index) }
        }
        return nil
    }

    /// A JSON string's content with its escapes decoded (RFC 8259 section 7); a malformed
    /// escape is kept as written.
    static func unescape(_ raw: ArraySlice<UInt8>) -> String {
        var scalars = String.UnicodeScalarView()
        var bytes: [UInt8] = []
        func flush() {
            if !bytes.isEmpty { scalars.append(contentsOf: String(decoding: bytes, as: UTF8.self).unicodeScalars); bytes = [] }
        }
        func hex(_ at: Int) -> UInt32? {
            guard at + 4 <= raw.endIndex else { return nil }
            var value: UInt32 = 0
            for b in raw[at..<(at + 4)] {
                guard let digit = Character(UnicodeScalar(b)).hexDigitValue else { return nil }
                value = value << 4 | UInt32(digit)
            }
            return value
        }
        var i = raw.startIndex
        while i < raw.endIndex {
            let b = raw[i]
            guard b == UInt8(ascii: "\\"), i + 1 < raw.endIndex else { bytes.append(b); i += 1; continue }
            let e = raw[i + 1]
            let simple: [UInt8: UInt8] = [UInt8(ascii: "\""): 0x22, UInt8(ascii: "\\"): 0x5C, UInt8(ascii: "/"): 0x2F,
                                          UInt8(ascii: "b"): 0x08, UInt8(ascii: "f"): 0x0C, UInt8(ascii: "n"): 0x0A,
                                          UInt8(ascii: "r"): 0x0D, UInt8(ascii: "t"): 0x09]
            if let plain = simple[e] { bytes.append(plain); i += 2; continue }
            guard e == UInt8(ascii: "u"), let unit = hex(i + 2) else { bytes.append(b); i += 1; continue }
            flush()
            var value = unit, length = 6
            if (0xD800..<0xDC00).contains(unit), i + 12 <= raw.endIndex, raw[i + 6] == UInt8(ascii: "\\"), raw[i + 7] == UInt8(ascii: "u"),
               let low = hex(i + 8), (0xDC00..<0xE000).contains(low) {
                value = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                length = 12
            }
            scalars.append(UnicodeScalar(value) ?? "\u{FFFD}")
            i += length
        }
        flush()
        return String(scalars)
    }
}
