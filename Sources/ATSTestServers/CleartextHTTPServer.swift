import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A cleartext HTTP/1.1 server on a loopback port, one thread per connection: the http:// end
/// of a redirect, or an http:// target ATS lets through.
package final class CleartextHTTPServer: Sendable {
    private let listener: LoopbackListener

    package var port: Int { listener.port }
    package var host: String { listener.host }
    /// TCP connections accepted so far.
    package var acceptedConnections: Int { listener.acceptedConnections }

    private init(listener: LoopbackListener) { self.listener = listener }

    package static func start(_ http: HTTPBehavior = .ok, bindAddress: String = "127.0.0.1") throws -> CleartextHTTPServer {
        let listener = try LoopbackListener(bindAddress: bindAddress) { connection in
            serve(connection, http: http)
        }
        return CleartextHTTPServer(listener: listener)
    }

    /// Idempotent; closes the listener and every open connection and waits (bounded) for their threads.
    package func stop() { listener.stop() }

    deinit { stop() }

    private static func serve(_ connection: LoopbackListener.Connection, http: HTTPBehavior) {
        let fd = connection.fd
        guard let path = RequestHead.readPath(isStopped: connection.isStopped, read: { buffer in
            buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        }) else { return }
        if case .noResponse = http.resolved(for: path) { return }
        guard let response = http.resolved(for: path).response() else { return }
        var written = 0
        // Bounded: each send either makes progress or fails (socket send timeout).
        while written < response.count {
            let count = response.withUnsafeBytes { send(fd, $0.baseAddress! + written, response.count - written, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return }
            written += count
        }
    }
}

/// Reading an HTTP/1.1 request head, over TLS or not.
enum RequestHead {
    /// Reads a request head (at most 16 KiB) through `read` and returns the request-target, or nil.
    static func readPath(isStopped: () -> Bool, read: (inout [UInt8]) -> Int) -> String? {
        let limit = 16 * 1024
        var head: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        let terminator: [UInt8] = Array("\r\n\r\n".utf8)
        while head.count < limit, !isStopped() {
            let count = read(&chunk)
            guard count > 0 else { return nil }
            head += chunk.prefix(count)
            if head.firstRange(of: terminator) != nil { break }
        }
        guard let requestLine = String(decoding: head, as: UTF8.self).split(separator: "\r\n").first else { return nil }
        let parts = requestLine.split(separator: " ")
        return parts.count >= 2 ? String(parts[1]) : nil
    }
}
