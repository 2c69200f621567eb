import Foundation
import Testing
import ATSProbe
import TLSFacts

/// A server that answers any ClientHello with a fixed TLS 1.2 ServerHello choosing a suite the
/// client did not offer. Listener and connection are loopback; every wait is bounded.
final class ScriptedServerHello: @unchecked Sendable {
    let listener: Int32
    let port: Int
    private let done = DispatchSemaphore(value: 0)

    init(suite: UInt16) throws {
        listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let fd = listener
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
                bind(fd, pointer, length) == 0 && listen(fd, 4) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard ok else { close(fd); throw POSIXError(.EADDRINUSE) }
        port = Int(UInt16(bigEndian: address.sin_port))

        // ServerHello: TLS 1.2, zero random, empty session id, `suite`, no compression, no extensions.
        let body: [UInt8] = [0x03, 0x03] + [UInt8](repeating: 0x42, count: 32) + [0x00, UInt8(suite >> 8), UInt8(suite & 0xFF), 0x00]
        let handshake: [UInt8] = [0x02, 0x00, 0x00, UInt8(body.count)] + body
        let record: [UInt8] = [0x16, 0x03, 0x03, 0x00, UInt8(handshake.count)] + handshake
        let semaphore = done
        Thread {
            defer { semaphore.signal() }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 5000) == 1 else { return }
            let connection = accept(fd, nil, nil)
            guard connection >= 0 else { return }
            defer { close(connection) }
            var buffer = [UInt8](repeating: 0, count: 4096)
            var readable = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
            guard poll(&readable, 1, 5000) == 1, recv(connection, &buffer, buffer.count, 0) > 0 else { return }
            _ = record.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            // Wait (bounded) for the client's alert or close before closing our side.
            _ = poll(&readable, 1, 5000)
        }.start()
    }

    /// Closes the listener and waits (bounded) for the server thread.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        _ = done.wait(timeout: .now() + 6)
        close(listener)
    }
}

@Suite("Probe client rejects")
struct ProbeClientRejectTests {
    @Test func suiteNotOfferedIsRejected() async throws {
        let server = try ScriptedServerHello(suite: 0x009D)
        defer { server.stop() }
        let prober = try Prober(options: ProbeOptions(useSystemTrustStore: false))
        let offered = ClientOffer(minVersion: .tls12, maxVersion: .tls12, suites: [CipherSuite(rawValue: 0xC02F)])
        let failure = await prober.probe(loopbackRequest(port: server.port, offer: offered)).failure
        #expect(failure?.kind == .clientRejected, "\(String(describing: failure))")
        #expect(failure?.alert == nil)
    }
}
