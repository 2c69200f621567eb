import Foundation
import Synchronization
import Testing
@testable import ATSProbe
import ATSTestServers
import TLSFacts
#if canImport(Glibc)
import Glibc
#endif

/// Lookups and connects cancelled at random points must each end by their deadline (issue 31,
/// item 0). The hang this guards against: the reactor thread resumed a lookup's continuation
/// while holding the Resolver's lock, while Happy Eyeballs cancelled the same lookup, whose
/// cancellation handler (run under the task's status-record lock) waited for the Resolver's
/// lock. Names with A only, AAAA only and both, answered with TTL 0 so every lookup is a DNS
/// query answered on the reactor thread, with many lookups in flight at once.
@Suite("Cancellation stress")
struct CancellationStressTests {
    /// A lookup or connect that has not ended this long after its own deadline is stuck.
    static let stuckAfter = 10.0
    static let canceller = DispatchQueue(label: "cancellation-stress", attributes: .concurrent)

    @Test func lookupsAndConnectsCancelledAtRandomEndInTime() async throws {
        let listener = try DualStackAcceptor()
        defer { listener.stop() }
        let server = try LoopbackDNSServer(names: [
            "v4.test": .answer(v4: ["127.0.0.1"], ttl: 0),
            "v6.test": .answer(v4: [], v6: ["::1"], ttl: 0),
            "both.test": .answer(v4: ["127.0.0.1"], v6: ["::1"], ttl: 0),
        ])
        defer { server.stop() }
        let shared = try ProbeRuntime.shared
        let resolver = try Resolver(reactor: shared.reactor, executor: shared.executor,
                                    servers: server.address)
        let names = ["v4.test", "v6.test", "both.test"]
        var generator = SystemRandomNumberGenerator()
        let rounds = 150, perRound = 16  // 2,400 operations, 16 in flight at a time
        var stuck = 0
        for _ in 0..<rounds {
            var tasks: [Task<Void, Never>] = []
            var ended: [DispatchSemaphore] = []
            for index in 0..<perRound {
                let name = names[Int.random(in: 0..<names.count, using: &generator)]
                let connects = index % 2 == 0
                let deadline = Deadline(secondsFromNow: 5)
                let port = listener.port
                let done = DispatchSemaphore(value: 0)
                ended.append(done)
                tasks.append(Task(executorPreference: shared.executor) {
                    // Signalled on the engine's thread as the operation returns: the check does
                    // not wait on Swift's cooperative pool, which the rest of the suite may keep busy.
                    defer { done.signal() }
                    if connects {
                        _ = await shared.binding { try? await TCPConnection.connect(host: name, port: port, deadline: deadline, resolver: resolver) }
                    } else {
                        _ = await resolver.lookup(name, family: Bool.random() ? .v4 : .v6, deadline: deadline)
                    }
                })
            }
            // Cancel each at a random point, from Dispatch's threads: a cancellation that blocks
            // (the bug) must hold one of those, not this test's own thread.
            for task in tasks {
                let microseconds = Int.random(in: 0..<3_000, using: &generator)
                if microseconds < 2_000 {
                    Self.canceller.asyncAfter(deadline: .now() + .microseconds(microseconds)) { task.cancel() }
                }
            }
            stuck += await Self.stuckCount(ended, within: 5 + Self.stuckAfter)
            if stuck > 0 { break }
        }
        #expect(stuck == 0, "\(stuck) lookups or connects outlived their deadline by \(Self.stuckAfter) s")
        // A stuck resolver holds its lock: closing it would block this test too.
        if stuck == 0 { resolver.shutdown() }
    }

    /// How many of `ended` are not signalled within `seconds` of now, waiting no longer than that
    /// (a stuck operation is left behind), on a Dispatch thread: neither the reactor's timers
    /// (a stuck reactor thread is what this test looks for) nor the cooperative pool.
    static func stuckCount(_ ended: [DispatchSemaphore], within seconds: Double) async -> Int {
        await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
            DispatchQueue.global().async {
                let end = DispatchTime.now() + seconds
                continuation.resume(returning: ended.filter { $0.wait(timeout: end) == .timedOut }.count)
            }
        }
    }
}

/// Accepts and closes connections on 127.0.0.1 and ::1 at one port, on a thread of its own.
final class DualStackAcceptor: @unchecked Sendable {
    let port: Int
    private let descriptors: [Int32]
    private final class Flag: Sendable { let value = Mutex(false) }
    private let stopped = Flag()
    private let thread: Thread
    private let ended = DispatchSemaphore(value: 0)

    init() throws {
        var lastError: Int32 = 0
        for _ in 0..<20 {
            let v6 = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
            var yes: Int32 = 1
            setsockopt(v6, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &yes, socklen_t(MemoryLayout<Int32>.size))
            var address6 = sockaddr_in6()
            address6.sin6_family = sa_family_t(AF_INET6)
            address6.sin6_addr = in6addr_loopback
            let bound6 = withUnsafePointer(to: &address6) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(v6, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
            var length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            _ = withUnsafeMutablePointer(to: &address6) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(v6, $0, &length) }
            }
            let port = UInt16(bigEndian: address6.sin6_port)
            let v4 = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address4 = sockaddr_in()
            address4.sin_family = sa_family_t(AF_INET)
            address4.sin_port = port.bigEndian
            address4.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            let bound4 = withUnsafePointer(to: &address4) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(v4, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            if bound6 == 0 && bound4 == 0 && listen(v6, 1024) == 0 && listen(v4, 1024) == 0 {
                self.port = Int(port)
                descriptors = [v4, v6]
                let descriptors = descriptors, stopped = stopped, ended = ended
                thread = Thread {
                    defer { ended.signal() }
                    var polled = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
                    while !stopped.value.withLock({ $0 }) {
                        guard poll(&polled, nfds_t(polled.count), 100) > 0 else { continue }
                        for entry in polled where entry.revents != 0 {
                            let accepted = accept(entry.fd, nil, nil)
                            if accepted >= 0 { close(accepted) }
                        }
                    }
                }
                thread.start()
                return
            }
            lastError = errno
            close(v4)
            close(v6)
        }
        throw POSIXError(POSIXErrorCode(rawValue: lastError) ?? .EADDRINUSE)
    }

    func stop() {
        stopped.value.withLock { $0 = true }
        // The accept thread sees the flag within one poll timeout; the descriptors close after it.
        if ended.wait(timeout: .now() + 2) == .success {
            for descriptor in descriptors { close(descriptor) }
        }
    }
}
