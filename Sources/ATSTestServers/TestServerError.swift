import Foundation

/// A failure while making certificates or running a test server.
package struct TestServerError: Error, Sendable, CustomStringConvertible {
    /// What failed, for code: callers compare this (and `errno`), never `message`'s text.
    package enum Code: Sendable, Hashable {
        /// A certificate, key or message could not be encoded.
        case encoding
        /// A system call failed; `errno` says why.
        case system
        /// An argument the servers do not take (a bind address that is not loopback, not an address).
        case badArgument
        /// No loopback port was free for both UDP and TCP.
        case noFreePort
        /// A test's bounded wait ended first.
        case timedOut
        /// A tool a test ran (openssl) failed.
        case toolFailed
    }

    package let code: Code
    /// For people: what failed, with strerror's text for a system call.
    package let message: String
    /// errno for `.system`, 0 otherwise.
    package let errno: Int32

    package init(_ code: Code, _ message: String, errno: Int32 = 0) {
        self.code = code
        self.message = message
        self.errno = errno
    }

    package var description: String { message }

    /// A system call that failed just now: errno kept, and its text in the message.
    static func system(_ message: String) -> TestServerError {
        let code = Glibc.errno
        return TestServerError(.system, "\(message): \(String(cString: strerror(code)))", errno: code)
    }
}
