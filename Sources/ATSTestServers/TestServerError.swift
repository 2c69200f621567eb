import Foundation
internal import COpenSSL

/// A failure while making certificates or running a test server, with OpenSSL's error queue drained into text.
public struct TestServerError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public let openSSLErrors: [String]

    public init(_ message: String, openSSLErrors: [String] = []) {
        self.message = message
        self.openSSLErrors = openSSLErrors
    }

    public var description: String {
        openSSLErrors.isEmpty ? message : "\(message): \(openSSLErrors.joined(separator: "; "))"
    }

    /// Drains this thread's OpenSSL error queue; call on the thread that made the failing call.
    static func openSSL(_ message: String) -> TestServerError {
        var errors: [String] = []
        while errors.count < 16 {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            errors.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return TestServerError(message, openSSLErrors: errors)
    }

    static func system(_ message: String) -> TestServerError {
        TestServerError("\(message): \(String(cString: strerror(errno)))")
    }
}

/// Runs an OpenSSL call that reports success as 1 (or > 0) and throws with the drained error queue otherwise.
@discardableResult
func check<Result: BinaryInteger>(_ what: String, _ call: () -> Result) throws -> Result {
    ERR_clear_error()
    let result = call()
    guard result > 0 else { throw TestServerError.openSSL(what) }
    return result
}

/// Unwraps a pointer an OpenSSL call returned, throwing with the error queue when it is NULL.
func checkNotNull<Pointer>(_ what: String, _ call: () -> Pointer?) throws -> Pointer {
    ERR_clear_error()
    guard let pointer = call() else { throw TestServerError.openSSL(what) }
    return pointer
}
