import Foundation
import TLSFacts
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Ignore SIGPIPE once: a client that hangs up mid-write must not kill the test process.
private let ignoreBrokenPipes: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

/// A listening socket on a loopback address with one accept thread and one thread per connection.
/// `stop()` wakes every thread (shutdown on each fd) and waits for them for a bounded time.
final class LoopbackListener: @unchecked Sendable {
    /// Socket timeouts for connection threads, so no blocking read or write outlives a stalled peer.
    static let ioTimeoutSeconds = 5
    /// How long stop() waits for threads to finish.
    static let stopTimeout: DispatchTimeInterval = .seconds(10)

    let host: String
    let port: Int

    private let listenFD: Int32
    private let threads = DispatchGroup()
    private let state = Locked(State())
    private let handler: @Sendable (Connection) -> Void

    private struct State {
        var stopped = false
        var accepted = 0
        var openFDs: Set<Int32> = []
    }

    /// What a connection thread gets: the fd (owned by the listener, closed after the handler) and a stop check.
    struct Connection: Sendable {
        let fd: Int32
        let isStopped: @Sendable () -> Bool
    }

    var acceptedConnections: Int { state.withLock { $0.accepted } }

    init(bindAddress: String, handler: @escaping @Sendable (Connection) -> Void) throws {
        _ = ignoreBrokenPipes
        self.host = bindAddress
        self.handler = handler
        (listenFD, port) = try Self.makeListeningSocket(on: bindAddress, backlog: 128)
        threads.enter()
        let thread = Thread { [self] in
            acceptLoop()
            threads.leave()
        }
        thread.name = "atsprobe-test-accept-\(port)"
        thread.start()
    }

    deinit { stop() }

    /// Idempotent. Returns once every thread has finished, or after `stopTimeout`.
    func stop() {
        let fds: Set<Int32>? = state.withLock { state in
            if state.stopped { return nil }
            state.stopped = true
            return state.openFDs
        }
        guard let fds else { return }
        // The listening socket stops listening now (Linux: a shut-down listener refuses new
        // connections), not when the accept thread next wakes: on a loaded machine that can be
        // after stop() has returned, and a client could still connect. The thread closes it.
        _ = shutdown(listenFD, Int32(SHUT_RDWR))
        // shutdown (not close) wakes blocked reads without letting the fd number be reused under a thread.
        for fd in fds { _ = shutdown(fd, Int32(SHUT_RDWR)) }
        _ = threads.wait(timeout: .now() + Self.stopTimeout)
    }

    var isStopped: Bool { state.withLock { $0.stopped } }

    private func acceptLoop() {
        defer { close(listenFD) }
        while !isStopped {
            var pollFD = pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0)
            // A short poll keeps stop() latency low without a self-pipe.
            guard poll(&pollFD, 1, 50) > 0 else { continue }
            let fd = accept(listenFD, nil, nil)
            guard fd >= 0 else { continue }
            let admitted = state.withLock { state -> Bool in
                guard !state.stopped else { return false }
                state.accepted += 1
                state.openFDs.insert(fd)
                return true
            }
            guard admitted else {
                close(fd)
                break
            }
            Self.setTimeouts(fd, seconds: Self.ioTimeoutSeconds)
            threads.enter()
            let thread = Thread { [self] in
                handler(Connection(fd: fd, isStopped: { [state] in state.withLock { $0.stopped } }))
                state.withLock { _ = $0.openFDs.remove(fd) }
                close(fd)
                threads.leave()
            }
            thread.name = "atsprobe-test-connection-\(port)"
            thread.start()
        }
    }

    static func setTimeouts(_ fd: Int32, seconds: Int) {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        let size = socklen_t(MemoryLayout<timeval>.size)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, size)
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, size)
    }

    /// Binds `address` on port 0 and listens; returns the fd and the port the kernel chose.
    static func makeListeningSocket(on address: String, backlog: Int32) throws -> (fd: Int32, port: Int) {
        let isIPv6 = address.contains(":")
        let fd = socket(isIPv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestServerError.system("socket") }
        var reuse: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        do {
            if isIPv6 {
                var socketAddress = sockaddr_in6()
                socketAddress.sin6_family = sa_family_t(AF_INET6)
                guard let parsed = IPAddress(address, family: .v6) else {
                    throw TestServerError(.badArgument, "not an IPv6 address: \(address)")
                }
                withUnsafeMutableBytes(of: &socketAddress.sin6_addr) { $0.copyBytes(from: parsed.bytes) }
                try withUnsafePointer(to: &socketAddress) { pointer in
                    try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        guard bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) == 0 else {
                            throw TestServerError.system("bind \(address)")
                        }
                    }
                }
            } else {
                var socketAddress = sockaddr_in()
                socketAddress.sin_family = sa_family_t(AF_INET)
                guard let parsed = IPAddress(address, family: .v4) else {
                    throw TestServerError(.badArgument, "not an IPv4 address: \(address)")
                }
                withUnsafeMutableBytes(of: &socketAddress.sin_addr) { $0.copyBytes(from: parsed.bytes) }
                try withUnsafePointer(to: &socketAddress) { pointer in
                    try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        guard bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 else {
                            throw TestServerError.system("bind \(address)")
                        }
                    }
                }
            }
            guard listen(fd, backlog) == 0 else { throw TestServerError.system("listen") }
            return (fd, try boundPort(fd))
        } catch {
            close(fd)
            throw error
        }
    }

    static func boundPort(_ fd: Int32) throws -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard result == 0 else { throw TestServerError.system("getsockname") }
        let family = Int32(storage.ss_family)
        return withUnsafePointer(to: &storage) { pointer in
            if family == AF_INET6 {
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            } else {
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            }
        }
    }
}

/// A port on 127.0.0.1 with nothing listening, so connecting to it is refused. The socket that
/// took it stays bound, never listening, for the life of the test process: closed, its port went
/// back to the pool, another test's server (port 0) could be given it, and a "refused" target
/// answered (seen with the tests running in parallel).
package func unusedLoopbackPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw TestServerError.system("socket") }
    var kept = false
    defer { if !kept { close(fd) } }
    var socketAddress = sockaddr_in()
    socketAddress.sin_family = sa_family_t(AF_INET)
    socketAddress.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
    let bound = withUnsafePointer(to: &socketAddress) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard bound == 0 else { throw TestServerError.system("bind 127.0.0.1:0") }
    let port = try LoopbackListener.boundPort(fd)
    reservedPorts.withLock { $0.append(fd) }
    kept = true
    return port
}

/// The sockets holding `unusedLoopbackPort()`'s ports, closed when the test process ends.
private let reservedPorts = Locked<[Int32]>([])
