import Foundation
import Testing
import ATSProbe
import TLSFacts

/// Connect-level failures that need no TLS server.
@Suite("Probe connect")
struct ProbeConnectTests {
    /// A loopback listener that never accepts, with its accept queue filled, so the kernel drops
    /// further SYNs and a connect can only time out. Owns its descriptors.
    final class FullListener {
        let listener: Int32
        var fillers: [Int32] = []
        let port: Int

        init() throws {
            let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            self.listener = listener
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
                    bind(listener, pointer, length) == 0 && listen(listener, 0) == 0
                        && getsockname(listener, pointer, &length) == 0
                }
            }
            guard bound else { close(listener); throw POSIXError(.EADDRINUSE) }
            port = Int(UInt16(bigEndian: address.sin_port))
            // Backlog 0 holds one connection; a few more make sure the queue is full. Each
            // filler waits at most 200 ms: completed or not, it occupies the queue.
            for _ in 0..<3 {
                let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
                fillers.append(fd)
                _ = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                }
                var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&pfd, 1, 200)
            }
        }

        deinit {
            fillers.forEach { close($0) }
            close(listener)
        }
    }

    @Test func fullAcceptQueueIsAConnectTimeout() async throws {
        let listener = try FullListener()
        let prober = try Prober(options: ProbeOptions(useSystemTrustStore: false))
        let failure = await prober.probe(loopbackRequest(port: listener.port, timeout: 1)).failure
        #expect(failure?.kind == .connectTimeout)
        #expect((900..<2000).contains(failure?.elapsedMilliseconds ?? -1))
        #expect(failure?.isUnreachable == true)
    }
}
