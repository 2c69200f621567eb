import Foundation
import Testing
@testable import ATSProbe
import TLSFacts

/// The event-driven engine: threads do not grow with handshakes in flight, cancellation and
/// deadlines end the work and free its descriptor at once, the limiter bounds what is in flight,
/// and Happy Eyeballs moves past an address that refuses.
@Suite("Engine", .serialized)  // one at a time: they count the process's threads and descriptors
struct EngineTests {
    /// A listening socket on 127.0.0.1 that never accepts: the kernel completes up to `backlog`
    /// TCP handshakes, and every ClientHello then waits for an answer that never comes. No server
    /// thread exists, so the process's threads are the client's.
    final class Blackhole: Sendable {
        let fd: Int32
        let port: Int

        init(backlog: Int32 = 1024) throws {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0, listen(fd, backlog) == 0 else { throw POSIXError(.EADDRINUSE) }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            self.fd = fd
            port = Int(UInt16(bigEndian: address.sin_port))
        }

        deinit { close(fd) }
    }

    /// A /proc file, read to its end (their stat size is 0, so size-based readers get nothing).
    static func procFile(_ path: String) -> String {
        guard let handle = FileHandle(forReadingAtPath: path), let data = try? handle.readToEnd() else { return "" }
        try? handle.close()
        return String(decoding: data, as: UTF8.self)
    }

    static func threadCount() -> Int {
        let status = procFile("/proc/self/status")
        let line = status.split(separator: "\n").first { $0.hasPrefix("Threads:") } ?? ""
        return Int(line.split(separator: "\t").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "") ?? -1
    }

    /// Established TCP connections from this machine to 127.0.0.1:`port` (/proc/net/tcp): the
    /// client ends of the handshakes to a Blackhole, whoever else opens or closes descriptors.
    static func establishedClients(toPort port: Int) -> Int {
        let table = procFile("/proc/net/tcp")
        let remote = String(format: "0100007F:%04X", port)
        return table.split(separator: "\n").dropFirst().filter { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            return fields.count > 3 && fields[2] == remote && fields[3] == "01"
        }.count
    }

    /// Waits, bounded, for `condition`.
    static func eventually(within seconds: Double, _ condition: () -> Bool) async -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }

    @Test func fiveHundredHandshakesInFlightOnAFixedNumberOfThreads() async throws {
        let hole = try Blackhole()
        let prober = try Prober(options: ProbeOptions(useSystemTrustStore: false))
        // Warm up: the engine's threads, the reactor and the resolvers start with the first probe.
        _ = await prober.probe(loopbackRequest(port: hole.port, timeout: 0.05))
        let threadsBefore = Self.threadCount()
        #expect(threadsBefore > 0, "cannot read /proc/self/status")
        let count = 500
        let started = Date()
        let results = Task {
            await withTaskGroup(of: ProbeResult.self) { group -> [ProbeResult] in
                for _ in 0..<count {
                    group.addTask { await prober.probe(loopbackRequest(port: hole.port, timeout: 60)) }
                }
                var all: [ProbeResult] = []
                for await result in group { all.append(result) }
                return all
            }
        }
        let shared = try ProbeRuntime.shared
        let allInFlight = await Self.eventually(within: 30) {
            prober.handshakesInFlight == count && shared.reactor.pendingWaits >= count
        }
        let threadsDuring = Self.threadCount()
        let connectedDuring = Self.establishedClients(toPort: hole.port)
        results.cancel()
        let outcomes = await results.value
        let elapsed = Date().timeIntervalSince(started)

        #expect(allInFlight, "only \(prober.handshakesInFlight) of \(count) handshakes got in flight")
        #expect(prober.peakHandshakesInFlight >= count)
        // A thread per handshake would add 500; the engine adds none. (The margin is for other
        // suites' test servers, which run in this process at the same time with a thread each.)
        #expect(threadsDuring - threadsBefore < 50, "threads \(threadsBefore) -> \(threadsDuring)")
        #expect(connectedDuring == count, "each handshake holds its socket")
        // Cancellation ends every one of them at once, long before their 60 s deadlines.
        #expect(outcomes.count == count)
        #expect(outcomes.allSatisfy { $0.failure?.kind == .cancelled })
        #expect(elapsed < 30)
        #expect(prober.handshakesInFlight == 0)
        // Every socket closed at once (an established client end left would be a leaked descriptor).
        let released = await Self.eventually(within: 5) { Self.establishedClients(toPort: hole.port) == 0 }
        #expect(released, "\(Self.establishedClients(toPort: hole.port)) sockets still open after cancellation")
    }

    @Test func deadlineEndsTheHandshakeAndClosesItsSocket() async throws {
        let hole = try Blackhole()
        let prober = try Prober(options: ProbeOptions(useSystemTrustStore: false))
        _ = await prober.probe(loopbackRequest(port: hole.port, timeout: 0.05))
        let result = await prober.probe(loopbackRequest(port: hole.port, timeout: 0.3))
        #expect(result.failure?.kind == .handshakeTimeout)
        #expect((250..<1500).contains(result.failure?.elapsedMilliseconds ?? -1))
        // The probe's own socket, not the process's descriptor count: other suites (runtimes
        // started and shut down, spawned binaries) open and close dozens meanwhile (55 more in
        // one full run). No client end to this test's Blackhole may stay established.
        #expect(Self.establishedClients(toPort: hole.port) == 0)
    }

    @Test func limiterBoundsHandshakesInFlight() async throws {
        let hole = try Blackhole()
        var options = ProbeOptions(useSystemTrustStore: false)
        options.maxHandshakesInFlight = 7
        let prober = try Prober(options: options)
        let started = Date()
        let outcomes = await withTaskGroup(of: ProbeResult.self) { group -> [ProbeResult] in
            for _ in 0..<20 {
                group.addTask { await prober.probe(loopbackRequest(port: hole.port, timeout: 0.2)) }
            }
            var all: [ProbeResult] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(prober.peakHandshakesInFlight == 7)
        #expect(outcomes.allSatisfy { [.handshakeTimeout, .connectTimeout].contains($0.failure?.kind) })
        // 20 handshakes of 0.2 s, 7 at a time, is three waves; waiting for a slot counts against
        // each one's deadline, so the last wave times out early rather than running 0.6 s late.
        #expect(Date().timeIntervalSince(started) < 5)
    }

    /// A task cancelled before it queues for a full limiter gets no slot and does not wait for one.
    @Test func limiterRefusesATaskCancelledBeforeItQueues() async throws {
        let limiter = TaskSemaphore(limit: 1)
        #expect(await limiter.acquire())
        let (gate, open) = AsyncStream.makeStream(of: Void.self)
        let waiter = Task {
            for await _ in gate { break }  // ends once the test has cancelled this task
            return await limiter.acquire()
        }
        waiter.cancel()
        open.finish()
        let outcome = await withTaskGroup(of: Bool?.self) { group -> Bool? in
            group.addTask { await waiter.value }
            group.addTask { try? await Task.sleep(for: .seconds(10)); return nil }
            let first = await group.next() ?? nil
            // A waiter that queued anyway would hold the group open: hand it the slot so the test ends.
            if first == nil { limiter.release() }
            group.cancelAll()
            return first
        }
        #expect(outcome == false, "acquire must return false at once for an already-cancelled task")
        #expect(limiter.inFlight == 1)
    }

    @Test func happyEyeballsMovesPastARefusingAddress() async throws {
        let hole = try Blackhole()
        // ::1 at this port refuses (nothing listens there on IPv6); 127.0.0.1 accepts.
        let v6 = try TCPConnection.numericAddresses(host: "::1", port: hole.port)
        let v4 = try TCPConnection.numericAddresses(host: "127.0.0.1", port: hole.port)
        // A refusal starts the next attempt at once: the deadline, shorter than the 250 ms attempt
        // delay, would pass if the second address waited its turn.
        let connection = try await (try ProbeRuntime.shared).binding { try await TCPConnection.connect(to: v6 + v4, port: hole.port, deadline: Deadline(secondsFromNow: 0.2)) }
        #expect(connection.peerAddress == "127.0.0.1")
    }

    @Test func addressesInterleaveByFamily() throws {
        let a6 = try TCPConnection.numericAddresses(host: "::1", port: 1)[0]
        let a4 = try TCPConnection.numericAddresses(host: "127.0.0.1", port: 1)[0]
        var queue = [a6, a6, a6, a4]
        var order: [Int32] = []
        while !queue.isEmpty {
            order.append(queue.remove(at: TCPConnection.nextAttempt(in: queue, after: order.last)).family)
        }
        #expect(order == [a6.family, a4.family, a6.family, a6.family])
    }

    @Test func reactorTimersFireInDeadlineOrder() async throws {
        let shared = try ProbeRuntime.shared
        let order = await withTaskGroup(of: Int.self) { group -> [Int] in
            for (index, delay) in [0.15, 0.05, 0.10].enumerated() {
                group.addTask {
                    _ = await shared.reactor.sleep(until: Deadline(secondsFromNow: delay))
                    return index
                }
            }
            var order: [Int] = []
            for await index in group { order.append(index) }
            return order
        }
        #expect(order == [1, 2, 0])
    }
}
