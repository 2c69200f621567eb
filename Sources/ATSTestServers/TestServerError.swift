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

    static func system(_ message: String) -> TestServerError {
        TestServerError("\(message): \(String(cString: strerror(errno)))")
    }
}
