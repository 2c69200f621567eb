import Foundation
import Synchronization
import Testing
@testable import ATSProbe

/// The engine's threads poll the reactor themselves (issue 43, item 2, leader/followers): a
/// ready socket is handled by the thread that saw it, with no reactor thread to hand it over.
@Suite("Leader/followers")
struct LeaderFollowersTests {
    /// Voluntary context switches (times a thread blocked) of this process's threads named
    /// `prefix`, from /proc/self/task/*/status.
    private static func voluntarySwitches(namedWithPrefix prefix: String) -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        var total = 0
        for task in tasks {
            guard let comm = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8),
                  comm.hasPrefix(prefix),
                  let status = try? String(contentsOfFile: "/proc/self/task/\(task)/status", encoding: .utf8) else { continue }
            for line in status.split(separator: "\n") where line.hasPrefix("voluntary_ctxt_switches:") {
                total += Int(line.split(separator: "\t").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "") ?? 0
            }
        }
        return total
    }

    /// One byte back and forth over a socket pair, 400 times: the runtime's side waits for each
    /// byte on the reactor, reads it and answers. With a reactor thread each byte cost two
    /// blocking waits of the runtime's threads (the reactor's in epoll, then the engine
    /// thread's it handed the job to, waiting for its next job): 2.0 a round trip. With the
    /// engine's threads polling, the thread that waits in epoll runs the job itself and waits
    /// again: one a round trip, the other thread asleep as a follower throughout.
    @Test func aReadySocketIsRunByTheThreadThatSawIt() async throws {
        let prefix = "lf-unit"
        let runtime = try ProbeRuntime(configuration: .init(engineThreads: 2, threadNamePrefix: prefix))
        // Only the engine's threads: no reactor thread. (Each names itself once it runs: polled,
        // bounded.)
        let named = Deadline(secondsFromNow: 5)
        while ProbeRuntime.threadCount(namedWithPrefix: prefix) < 2 && !named.hasPassed { await Task.yield() }
        #expect(ProbeRuntime.threadCount(namedWithPrefix: prefix) == 2)
        var ends: [Int32] = [0, 0]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
        let (inside, outside) = (ends[0], ends[1])
        defer { close(inside); close(outside) }
        _ = fcntl(inside, F_SETFL, fcntl(inside, F_GETFL) | O_NONBLOCK)
        var bound = timeval(tv_sec: 10, tv_usec: 0)  // the outside's reads: bounded
        _ = setsockopt(outside, SOL_SOCKET, SO_RCVTIMEO, &bound, socklen_t(MemoryLayout<timeval>.size))

        let rounds = 400
        let echo = Task(executorPreference: runtime.executor) { () -> Int in
            var answered = 0
            var byte: UInt8 = 0
            while answered < rounds {
                guard await runtime.reactor.wait(for: .readable, on: inside, until: Deadline(secondsFromNow: 10)) == .ready else { break }
                guard read(inside, &byte, 1) == 1 else { continue }
                guard write(inside, &byte, 1) == 1 else { break }
                answered += 1
            }
            return answered
        }
        // The outside runs on a thread of its own (blocking calls, never on Swift's pool).
        let outsideDone = DispatchSemaphore(value: 0)
        let outsideRounds = Mutex(0)
        let before = Mutex(0)
        Thread.detachNewThread {
            var byte: UInt8 = 1
            // Let the echo task reach its first wait, then count from there.
            before.withLock { $0 = Self.voluntarySwitches(namedWithPrefix: prefix) }
            for _ in 0..<rounds {
                guard write(outside, &byte, 1) == 1, read(outside, &byte, 1) == 1 else { break }
                outsideRounds.withLock { $0 += 1 }
            }
            outsideDone.signal()
        }
        let answered = await echo.value
        #expect(outsideDone.wait(timeout: .now() + 30) == .success)
        let switches = Self.voluntarySwitches(namedWithPrefix: prefix) - before.withLock { $0 }
        #expect(answered == rounds)
        #expect(outsideRounds.withLock { $0 } == rounds)
        let perRound = Double(switches) / Double(rounds)
        print("leader/followers: \(switches) voluntary context switches of the runtime's threads for \(rounds) round trips")
        #expect(perRound < 1.5, "the runtime's threads blocked \(perRound) times a round trip (a hand-off blocks twice)")
        try await runtime.shutdown()
    }
}
