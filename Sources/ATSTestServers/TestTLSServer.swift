import Foundation
internal import COpenSSL

/// An in-process TLS server on a loopback port, one thread per connection. Security level 0 so it can
/// serve TLS 1.0, SHA-1, RSA-1024, static RSA and DHE (ffdhe via SSL_CTX_set_dh_auto).
public final class TestTLSServer: Sendable {
    private let listener: LoopbackListener
    private let handshakes: Locked<Int>

    public var port: Int { listener.port }
    /// The bind address.
    public var host: String { listener.host }
    /// TCP connections accepted so far.
    public var acceptedConnections: Int { listener.acceptedConnections }
    /// TLS handshakes that completed on the server side.
    public var completedHandshakes: Int { handshakes.current }

    private init(listener: LoopbackListener, handshakes: Locked<Int>) {
        self.listener = listener
        self.handshakes = handshakes
    }

    public static func start(_ configuration: TLSServerConfiguration) throws -> TestTLSServer {
        let context = try ServerContext(configuration)
        let handshakes = Locked(0)
        let http = configuration.http
        let fault = configuration.http2Fault
        let listener = try LoopbackListener(bindAddress: configuration.bindAddress) { connection in
            serve(connection, context: context, http: http, fault: fault, handshakes: handshakes)
        }
        return TestTLSServer(listener: listener, handshakes: handshakes)
    }

    /// Idempotent; closes the listener and every open connection and waits (bounded) for their threads.
    public func stop() { listener.stop() }

    deinit { stop() }

    private static func serve(_ connection: LoopbackListener.Connection, context: ServerContext,
                              http: HTTPBehavior, fault: HTTP2Fault?, handshakes: Locked<Int>) {
        ERR_clear_error()
        guard let ssl = SSL_new(context.pointer) else { return }
        defer {
            SSL_free(ssl)
            ERR_clear_error()
        }
        guard SSL_set_fd(ssl, connection.fd) == 1, SSL_accept(ssl) == 1 else { return }
        handshakes.withLock { $0 += 1 }

        if case .noResponse = http {
            _ = SSL_shutdown(ssl)
            return
        }
        var selected: UnsafePointer<UInt8>?
        var selectedLength: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &selected, &selectedLength)
        if let selected, selectedLength == 2, selected[0] == UInt8(ascii: "h"), selected[1] == UInt8(ascii: "2") {
            HTTP2Responder(read: { buffer in
                Int(buffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) })
            }, write: { bytes in
                bytes.withUnsafeBytes { raw in
                    var written = 0
                    while written < raw.count {
                        let count = SSL_write(ssl, raw.baseAddress! + written, Int32(raw.count - written))
                        guard count > 0 else { return false }
                        written += Int(count)
                    }
                    return true
                }
            }, isStopped: connection.isStopped).serve(http, fault: fault)
            _ = SSL_shutdown(ssl)
            return
        }
        guard let path = readRequestPath(ssl, isStopped: connection.isStopped),
              let response = http.resolved(for: path).response() else { return }
        response.withUnsafeBytes { raw in
            var written = 0
            // Bounded: each write either makes progress or fails (socket send timeout).
            while written < raw.count {
                let count = SSL_write(ssl, raw.baseAddress! + written, Int32(raw.count - written))
                guard count > 0 else { return }
                written += Int(count)
            }
        }
        _ = SSL_shutdown(ssl)
    }

    /// Reads an HTTP request head (at most 16 KiB) and returns the request-target, or nil.
    private static func readRequestPath(_ ssl: OpaquePointer, isStopped: () -> Bool) -> String? {
        RequestHead.readPath(isStopped: isStopped) { buffer in
            Int(buffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) })
        }
    }
}
