import Foundation
import Testing
@testable import ATSProbe

/// The reactor's platform seam (`ReactorBackend`), on this platform's backend alone: what the
/// reactor relies on from any backend (a kqueue one would have to pass the same tests).
@Suite("Reactor backend")
struct ReactorBackendTests {
    /// A pipe whose ends are closed when the test ends.
    private func withPipe(_ body: (_ read: Int32, _ write: Int32) throws -> Void) throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        try body(ends[0], ends[1])
    }

    /// Ids reported by one bounded wait.
    private func ready(_ backend: PlatformReactorBackend, milliseconds: Int32 = 0) -> [UInt64: ReactorReadiness] {
        var seen: [UInt64: ReactorReadiness] = [:]
        backend.wait(milliseconds: milliseconds) { id, readiness in seen[id] = readiness }
        return seen
    }

    @Test("A one-shot registration reports once, then stays quiet until armed again")
    func oneShot() throws {
        let backend = try PlatformReactorBackend()
        defer { backend.close() }
        try withPipe { read, write in
            #expect(backend.armOnce(read, id: 7, for: .readable))
            #expect(ready(backend).isEmpty)
            #expect(Foundation.write(write, "x", 1) == 1)
            let first = ready(backend, milliseconds: 1000)
            #expect(first[7]?.readable == true)
            #expect(ready(backend).isEmpty)  // disarmed although still readable
            #expect(backend.armOnce(read, id: 8, for: .readable))  // re-armed under a new id
            #expect(ready(backend, milliseconds: 1000)[8]?.readable == true)
            backend.remove(read)
        }
    }

    @Test("A watch is level-triggered until removed, and rewatch changes its interest")
    func watch() throws {
        let backend = try PlatformReactorBackend()
        defer { backend.close() }
        try withPipe { read, write in
            #expect(backend.watch(write, id: 3, readable: false, writable: true))
            #expect(ready(backend, milliseconds: 1000)[3]?.writable == true)
            #expect(ready(backend, milliseconds: 1000)[3]?.writable == true)  // still ready, reported again
            backend.rewatch(write, id: 3, readable: true, writable: false)
            #expect(ready(backend).isEmpty)
            backend.remove(write)
            #expect(backend.watch(read, id: 4, readable: true, writable: false))
            #expect(Foundation.write(write, "x", 1) == 1)
            #expect(ready(backend, milliseconds: 1000)[4]?.readable == true)
            backend.remove(read)
            #expect(ready(backend).isEmpty)
        }
    }

    @Test("wake() ends a wait at once and is never reported as a registration")
    func wake() throws {
        let backend = try PlatformReactorBackend()
        defer { backend.close() }
        backend.wake()
        let start = Deadline.now()
        #expect(ready(backend, milliseconds: 10_000).isEmpty)
        #expect(Deadline.now() - start < 5)
        #expect(ready(backend).isEmpty)  // consumed
    }

    @Test("A descriptor that cannot be polled is refused, not registered")
    func unpollable() throws {
        let backend = try PlatformReactorBackend()
        defer { backend.close() }
        #expect(!backend.armOnce(-1, id: 1, for: .readable))
        #expect(!backend.watch(-1, id: 2, readable: true, writable: false))
    }
}
