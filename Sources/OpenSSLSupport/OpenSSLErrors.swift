internal import COpenSSL
internal import CATSProbeShims

/// One entry of OpenSSL's thread-local error queue, copied out as a value.
struct OpenSSLErrorEntry: Sendable {
    let library: Int32
    let reason: Int32
    let text: String

    var isSSL: Bool { library == ERR_LIB_SSL }
}

/// Reads OpenSSL's error queue. Call on the thread that made the failing call.
enum OpenSSLErrors {
    static func clear() { ERR_clear_error() }

    /// Empties the queue, keeping at most `limit` entries (oldest first).
    static func drain(limit: Int = 8) -> [OpenSSLErrorEntry] {
        var entries: [OpenSSLErrorEntry] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            guard entries.count < limit else { continue }
            let reasonText = ERR_reason_error_string(code).map { String(cString: $0) }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            let full = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            entries.append(OpenSSLErrorEntry(library: CATSProbeShims_ERR_GET_LIB(code),
                                             reason: CATSProbeShims_ERR_GET_REASON(code),
                                             text: reasonText ?? full))
        }
        return entries
    }

    /// One line for a failure's detail.
    static func describe(_ entries: [OpenSSLErrorEntry]) -> String {
        entries.map(\.text).joined(separator: "; ")
    }
}
