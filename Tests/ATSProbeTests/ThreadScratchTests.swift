import Foundation
import Synchronization
import Testing
@testable import ATSProbe

/// The per-thread regions that a recv and an epoll_wait borrow (ThreadScratch): the same memory
/// each time on one thread, other memory on another thread, and the two regions apart.
@Suite struct ThreadScratchTests {
    static func addresses() -> (receive: UInt, events: UInt, receiveSize: Int, eventsSize: Int) {
        let receive = ThreadScratch.withRegion(.receive) { (UInt(bitPattern: $0.baseAddress!), $0.count) }
        let events = ThreadScratch.withRegion(.events) { (UInt(bitPattern: $0.baseAddress!), $0.count) }
        return (receive.0, events.0, receive.1, events.1)
    }

    @Test func eachThreadHasItsOwnRegionsAndKeepsThem() throws {
        let first = Self.addresses()
        let again = Self.addresses()
        #expect(first.receive == again.receive && first.events == again.events)
        #expect(first.receiveSize == 16 * 1024 && first.eventsSize == 4 * 1024)
        #expect(first.receive + UInt(first.receiveSize) <= first.events || first.events + UInt(first.eventsSize) <= first.receive)
        // Writing the whole of both regions stays inside this thread's block.
        ThreadScratch.withRegion(.receive) { $0.initializeMemory(as: UInt8.self, repeating: 0xAA) }
        ThreadScratch.withRegion(.events) { $0.initializeMemory(as: UInt8.self, repeating: 0x55) }
        #expect(ThreadScratch.withRegion(.receive) { $0.allSatisfy { $0 == 0xAA } })

        let other = Mutex<(receive: UInt, events: UInt)?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let seen = Self.addresses()
            other.withLock { $0 = (seen.receive, seen.events) }
            done.signal()
        }
        thread.start()
        #expect(done.wait(timeout: .now() + 10) == .success, "the other thread did not finish within 10 s")
        let elsewhere = try #require(other.withLock { $0 })
        #expect(elsewhere.receive != first.receive && elsewhere.events != first.events)
    }
}
