internal import COpenSSL
internal import CATSProbeShims

/// One entry of OpenSSL's thread-local error queue, copied out as a value.
package struct OpenSSLErrorEntry: Sendable {
    package let library: Int32
    package let reason: Int32
    package let text: String

    package var isSSL: Bool { library == ERR_LIB_SSL }
}

/// Reads OpenSSL's error queue. Call on the thread that made the failing call.
package enum OpenSSLErrors {
    package static func clear() { ERR_clear_error() }

    /// Empties the queue, keeping at most `limit` entries (oldest first).
    package static func drain(limit: Int = 8) -> [OpenSSLErrorEntry] {
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
    package static func describe(_ entries: [OpenSSLErrorEntry]) -> String {
        entries.map(\.text).joined(separator: "; ")
    }
}

/// An OpenSSL call that failed: what kind of step it was, what was being done, and the error
/// queue drained on the thread that made the call.
package struct OpenSSLError: Error, Sendable, CustomStringConvertible {
    /// The kind of step that failed, for code: callers compare this (or the entries' library and
    /// reason), never `operation`'s text.
    package enum Code: Sendable, Hashable {
        /// Making an object (a context, a store, a BIO, a stack, an SSL): memory, mostly.
        case allocation
        /// Reading DER or PEM: the bytes are not what was asked for.
        case decoding
        /// Writing DER or PEM.
        case encoding
        /// Setting an object up: versions, suites, groups, names, extensions, a certificate or key.
        case configuration
        /// Making a key, a signature or a digest.
        case cryptography
    }

    package let code: Code
    /// For people: what was being done ("setting the groups X25519").
    package let operation: String
    package let entries: [OpenSSLErrorEntry]

    /// Drains this thread's error queue into the error.
    package init(_ code: Code, _ operation: String) {
        self.code = code
        self.operation = operation
        entries = OpenSSLErrors.drain(limit: 16)
    }

    package var description: String {
        entries.isEmpty ? operation : "\(operation): \(OpenSSLErrors.describe(entries))"
    }
}

/// Throws with the drained error queue unless `success`: `try check(rc == 1, .configuration, "setting the groups")`.
package func check(_ success: Bool, _ code: OpenSSLError.Code, _ operation: @autoclosure () -> String) throws(OpenSSLError) {
    guard success else { throw OpenSSLError(code, operation()) }
}

/// Runs an OpenSSL call that reports success as 1 (or > 0) on a cleared error queue, and throws
/// with what it queued otherwise.
@discardableResult
package func check<Result: BinaryInteger>(_ code: OpenSSLError.Code, _ operation: String, _ call: () -> Result) throws(OpenSSLError) -> Result {
    ERR_clear_error()
    let result = call()
    guard result > 0 else { throw OpenSSLError(code, operation) }
    return result
}

/// Unwraps a pointer an OpenSSL call returned (on a cleared error queue), throwing with what it
/// queued when it is NULL.
package func checkNotNull<Pointer>(_ code: OpenSSLError.Code, _ operation: String, _ call: () -> Pointer?) throws(OpenSSLError) -> Pointer {
    ERR_clear_error()
    guard let pointer = call() else { throw OpenSSLError(code, operation) }
    return pointer
}
