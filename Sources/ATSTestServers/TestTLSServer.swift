import Foundation
internal import COpenSSL
internal import OpenSSLSupport

/// An in-process TLS server on a loopback port, one thread per connection. Security level 0 so it can
/// serve TLS 1.0, SHA-1, RSA-1024, static RSA and DHE (ffdhe via SSL_CTX_set_dh_auto).
package final class TestTLSServer: Sendable {
    private let listener: LoopbackListener
    private let handshakes: Locked<Int>
    private let heads: Locked<[String]>
    private let hold: ConnectionHold?

    package var port: Int { listener.port }
    /// The bind address.
    package var host: String { listener.host }
    /// TCP connections accepted so far.
    package var acceptedConnections: Int { listener.acceptedConnections }
    /// TLS handshakes that completed on the server side.
    package var completedHandshakes: Int { handshakes.current }
    /// Every request head received, as text, in arrival order: what reached the wire.
    package var requestHeads: [String] { heads.current }
    /// How the configuration's `hold` ended: the connections that had arrived, and whether
    /// they reached its count; nil without a hold, or while it lasts.
    package var holdRelease: HoldRelease? { hold?.released }

    private init(listener: LoopbackListener, handshakes: Locked<Int>, heads: Locked<[String]>, hold: ConnectionHold?) {
        self.listener = listener
        self.handshakes = handshakes
        self.heads = heads
        self.hold = hold
    }

    package static func start(_ configuration: TLSServerConfiguration) throws -> TestTLSServer {
        let context = try ServerContext(configuration)
        let handshakes = Locked(0)
        let heads = Locked<[String]>([])
        let http = configuration.http
        let fault = configuration.http2Fault
        let hold = configuration.hold.map(ConnectionHold.init)
        let listener = try LoopbackListener(bindAddress: configuration.bindAddress) { connection in
            hold?.arrive(isStopped: connection.isStopped)
            serve(connection, context: context, http: http, fault: fault, handshakes: handshakes, heads: heads)
        }
        return TestTLSServer(listener: listener, handshakes: handshakes, heads: heads, hold: hold)
    }

    /// Starts `configuration`, runs `body` with the server, and stops the server whatever happens.
    package static func serving<T>(_ configuration: TLSServerConfiguration,
                                  _ body: (TestTLSServer) async throws -> T) async throws -> T {
        let server = try start(configuration)
        defer { server.stop() }
        return try await body(server)
    }

    /// Idempotent; closes the listener and every open connection and waits (bounded) for their threads.
    package func stop() { listener.stop() }

    deinit { stop() }

    private static func serve(_ connection: LoopbackListener.Connection, context: ServerContext,
                              http: HTTPBehavior, fault: HTTP2Fault?, handshakes: Locked<Int>, heads: Locked<[String]>) {
        guard let owner = try? SSLObject(context: context.context) else { return }
        let ssl = ServerSSL(owner)  // the SSL is freed with `ssl`
        defer { ERR_clear_error() }
        guard ssl.owner.setFileDescriptor(connection.fd) == 1, ssl.owner.accept() == 1 else { return }
        handshakes.withLock { $0 += 1 }

        if case .noResponse = http {
            ssl.owner.shutdown()
            return
        }
        if ssl.owner.selectedALPN == "h2" {
            HTTP2Responder(read: { buffer in
                Int(buffer.withUnsafeMutableBytes { ssl.owner.read(into: $0) })
            }, write: { writeAll($0, ssl: ssl) }, isStopped: connection.isStopped).serve(http, fault: fault)
            ssl.owner.shutdown()
            return
        }
        guard let (path, head) = readRequestPath(ssl, isStopped: connection.isStopped) else { return }
        heads.withLock { $0.append(head) }
        answer(http.resolved(for: path), ssl: ssl, connection: connection)
    }

    /// Writes all of `bytes`, false when the peer is gone. Bounded: each SSL_write either makes
    /// progress or fails (the socket has a send timeout).
    private static func writeAll(_ bytes: [UInt8], ssl: ServerSSL) -> Bool {
        bytes.withUnsafeBytes { raw in
            var written = 0
            while written < raw.count {
                let count = ssl.owner.write(UnsafeRawBufferPointer(rebasing: raw[written...]))
                guard count > 0 else { return false }
                written += Int(count)
            }
            return true
        }
    }

    private static func answer(_ behavior: HTTPBehavior, ssl: ServerSSL, connection: LoopbackListener.Connection) {
        func write(_ bytes: [UInt8]) -> Bool { writeAll(bytes, ssl: ssl) }
        let endlessLimit = 8 << 20
        switch behavior {
        case .raw(let bytes):
            _ = write(bytes)
        case .trickle(let bytes, let interval):
            for byte in bytes where !connection.isStopped() {
                guard write([byte]) else { return }
                usleep(useconds_t(interval * 1000))
            }
        case .endlessHeaders:
            guard write(Array("HTTP/1.1 200 OK\r\n".utf8)) else { return }
            let line = Array("X-Filler: \(String(repeating: "a", count: 1000))\r\n".utf8)
            for _ in 0..<(endlessLimit / line.count) where !connection.isStopped() {
                guard write(line) else { return }
            }
        case .endlessBody:
            guard write(Array("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n".utf8)) else { return }
            let chunk = [UInt8](repeating: 0x61, count: 16 * 1024)
            for _ in 0..<(endlessLimit / chunk.count) where !connection.isStopped() {
                guard write(chunk) else { return }
            }
        case .renegotiate(let then):
            // TLS 1.2 only (1.3 has no renegotiation); the request comes with the write.
            _ = ssl.owner.renegotiate()
            _ = ssl.owner.doHandshake()
            answer(then, ssl: ssl, connection: connection)
            return
        case .held(let hold, let then):
            guard hold.takes() else { return answer(then, ssl: ssl, connection: connection) }
            // Unanswered until the server stops (the test's own end), bounded all the same.
            for _ in 0..<2_400 where !connection.isStopped() { usleep(50_000) }
            return
        case .reset:
            var linger = linger(l_onoff: 1, l_linger: 0)
            _ = setsockopt(connection.fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
            return
        default:
            guard let response = behavior.response() else { return }
            _ = write(response)
        }
        ssl.owner.shutdown()
    }

    /// Reads an HTTP request head (at most 16 KiB) and returns the request-target and the head.
    private static func readRequestPath(_ ssl: ServerSSL, isStopped: () -> Bool) -> (String, String)? {
        let limit = 16 * 1024
        var head: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        let terminator: [UInt8] = Array("\r\n\r\n".utf8)
        while head.count < limit, !isStopped() {
            let count = chunk.withUnsafeMutableBytes { ssl.owner.read(into: $0) }
            guard count > 0 else { return nil }
            head += chunk.prefix(Int(count))
            if head.firstRange(of: terminator) != nil { break }
        }
        let text = String(decoding: head, as: UTF8.self)
        guard let requestLine = text.split(separator: "\r\n").first else { return nil }
        let parts = requestLine.split(separator: " ")
        return parts.count >= 2 ? (String(parts[1]), text) : nil
    }
}

/// One served connection's SSL, in a class so the HTTP/2 responder's closures can reach it.
private final class ServerSSL {
    let owner: SSLObject
    init(_ owner: consuming SSLObject) { self.owner = owner }
}
