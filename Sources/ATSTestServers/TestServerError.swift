import Foundation
internal import COpenSSL

/// A failure while making certificates or running a test server, with OpenSSL's error queue drained into text.
package struct TestServerError: Error, Sendable, CustomStringConvertible {
    package let message: String
    package let openSSLErrors: [String]

    package init(_ message: String, openSSLErrors: [String] = []) {
        self.message = message
        self.openSSLErrors = openSSLErrors
    }

    package var description: String {
        openSSLErrors.isEmpty ? message : "\(message): \(openSSLErrors.joined(separator: "; "))"
    }

    static func system(_ message: String) -> TestServerError {
        TestServerError("\(message): \(String(cString: strerror(errno)))")
    }
}
