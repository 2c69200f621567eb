import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Ways a server can misbehave, for failure tests.
package enum HostileBehavior: Sendable, Hashable {
    /// Accept, read, never answer (until stopped).
    case silent
    /// Answer anything with "HTTP/1.1 400 Bad Request" and close.
    case plainHTTP
    /// Accept, then reset (SO_LINGER 0 close).
    case resetOnAccept
    /// Accept, then close cleanly (FIN).
    case closeOnAccept
    /// Answer with random bytes that are not a TLS record.
    case garbage
    /// Read the ClientHello, then close.
    case closeAfterClientHello
    /// Read the ClientHello, answer with a fatal alert record of this code, close.
    case tlsAlert(UInt8)
    /// Read the ClientHello, then send this many warning alerts (user_canceled) and nothing else.
    case warningAlerts(Int)
    /// Read the ClientHello, then send a handshake record one byte every `intervalMilliseconds`
    /// (a slowloris handshake: always progressing, never done).
    case slowHandshake(intervalMilliseconds: Int)
    /// Read the ClientHello, then reset (RST).
    case resetAfterClientHello
}

/// A loopback server that misbehaves on purpose, one thread per connection.
package final class HostileServer: Sendable {
    /// The longest `silent` holds a connection when nobody stops the server.
    static let silentLimitSeconds: TimeInterval = 120

    private let listener: LoopbackListener

    package var port: Int { listener.port }
    package var host: String { listener.host }
    package var acceptedConnections: Int { listener.acceptedConnections }

    private init(listener: LoopbackListener) { self.listener = listener }

    package static func start(_ behavior: HostileBehavior, bindAddress: String = "127.0.0.1") throws -> HostileServer {
        let listener = try LoopbackListener(bindAddress: bindAddress) { connection in
            misbehave(behavior, on: connection)
        }
        return HostileServer(listener: listener)
    }

    /// Idempotent; closes the listener and every open connection and waits (bounded) for their threads.
    package func stop() { listener.stop() }

    deinit { stop() }

    private static func misbehave(_ behavior: HostileBehavior, on connection: LoopbackListener.Connection) {
        let fd = connection.fd
        switch behavior {
        case .silent:
            let deadline = Date(timeIntervalSinceNow: silentLimitSeconds)
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !connection.isStopped(), Date() < deadline {
                let count = recv(fd, &buffer, buffer.count, 0)
                if count == 0 { return }
                if count < 0, errno != EAGAIN, errno != EWOULDBLOCK, errno != EINTR { return }
            }
        case .plainHTTP:
            var buffer = [UInt8](repeating: 0, count: 4096)
            _ = recv(fd, &buffer, buffer.count, 0)
            let body = "Bad Request\n"
            sendAll(fd, "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nContent-Length: \(body.utf8.count)\r\n"
                     + "Connection: close\r\n\r\n" + body)
            closeGracefully(fd)
        case .resetOnAccept:
            // Linger 0: the listener's close() then sends RST instead of FIN.
            var linger = linger(l_onoff: 1, l_linger: 0)
            _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
        case .closeOnAccept:
            closeGracefully(fd)
        case .garbage:
            var buffer = [UInt8](repeating: 0, count: 4096)
            _ = recv(fd, &buffer, buffer.count, 0)
            var noise = (0..<64).map { _ in UInt8.random(in: 0...255) }
            noise[0] = 0x7F  // never a TLS content type (20...24), so it cannot start a record
            sendAll(fd, noise)
            closeGracefully(fd)
        case .closeAfterClientHello:
            _ = readRecord(fd)
            closeGracefully(fd)
        case .warningAlerts(let count):
            _ = readRecord(fd)
            for _ in 0..<count { sendAll(fd, [0x15, 0x03, 0x03, 0x00, 0x02, 0x01, 90]) }  // warning, user_canceled
            closeGracefully(fd)
        case .slowHandshake(let interval):
            _ = readRecord(fd)
            // A ServerHello record header announcing 16 KiB, then its body a byte at a time.
            let record: [UInt8] = [0x16, 0x03, 0x03, 0x40, 0x00, 0x02] + [UInt8](repeating: 0, count: 16 * 1024)
            for byte in record where !connection.isStopped() {
                guard send(fd, [byte], 1, Int32(MSG_NOSIGNAL)) == 1 else { return }
                usleep(useconds_t(interval * 1000))
            }
        case .resetAfterClientHello:
            _ = readRecord(fd)
            var linger = linger(l_onoff: 1, l_linger: 0)
            _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
        case .tlsAlert(let description):
            _ = readRecord(fd)
            sendAll(fd, [0x15, 0x03, 0x01, 0x00, 0x02, 0x02, description])  // alert record: fatal, description
            closeGracefully(fd)
        }
    }

    /// Reads one TLS record (header plus its declared body, capped), bounded by the socket timeout.
    private static func readRecord(_ fd: Int32) -> [UInt8]? {
        guard let header = readExactly(fd, count: 5) else { return nil }
        let length = min(Int(header[3]) << 8 | Int(header[4]), 1 << 15)
        guard let body = readExactly(fd, count: length) else { return nil }
        return header + body
    }

    private static func readExactly(_ fd: Int32, count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let received = bytes.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + filled, count - filled, 0) }
            guard received > 0 else { return nil }
            filled += received
        }
        return bytes
    }

    static func sendAll(_ fd: Int32, _ text: String) { sendAll(fd, Array(text.utf8)) }

    static func sendAll(_ fd: Int32, _ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return }
            sent += count
        }
    }

    /// FIN first, then drain until the peer closes (at most ~2 s), so unread client bytes
    /// do not turn our close into a reset that could discard what we sent.
    static func closeGracefully(_ fd: Int32) {
        _ = shutdown(fd, Int32(SHUT_WR))
        LoopbackListener.setTimeouts(fd, seconds: 1)
        var buffer = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<2 {
            if recv(fd, &buffer, buffer.count, 0) <= 0 { break }
        }
    }
}
