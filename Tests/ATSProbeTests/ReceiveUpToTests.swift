import Foundation
import Testing
@testable import ATSProbe

/// `TCPConnection.receive(upTo:deadline:_:)`: the read that lends its bytes for one call and
/// keeps no buffer per connection (TLSSession's reads; docs/performance.md, issue 23).
struct ReceiveUpToTests {
    @Test func bytesArriveWholeAndInOrderInChunksNoLargerThanTheLimitThenTheEnd() async throws {
        let listener = try EngineTests.Blackhole()
        let addresses = try TCPConnection.numericAddresses(host: "127.0.0.1", port: listener.port)
        let connection = try await (try ProbeRuntime.shared).binding { try await TCPConnection.connect(to: addresses, port: listener.port,
                                                         deadline: Deadline(secondsFromNow: 5)) }
        let server = accept(listener.fd, nil, nil)
        try #require(server >= 0)
        defer { close(server) }
        // 40,000 bytes fit in a loopback socket's buffers: written at once, then FIN.
        let sent = (0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) }
        let written = sent.withUnsafeBytes { send(server, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        try #require(written == sent.count)
        _ = shutdown(server, Int32(SHUT_WR))

        let limit = 16 * 1024
        var received: [UInt8] = []
        var chunks: [Int] = []
        var end: TCPConnection.IOResult?
        for _ in 0..<100 {  // 3 reads at least; bounded whatever the socket does
            let result = await connection.receive(upTo: limit, deadline: Deadline(secondsFromNow: 5)) { bytes in
                received += bytes
                chunks.append(bytes.count)
            }
            guard case .bytes(let count) = result else {
                end = result
                break
            }
            #expect(count == chunks.last, "the count returned is the count lent")
        }
        #expect(received == sent)
        #expect(chunks.count >= 3)
        #expect(chunks.allSatisfy { $0 > 0 && $0 <= limit }, "chunks: \(chunks)")
        guard case .closed? = end else {
            Issue.record("expected the end of the stream, got \(String(describing: end))")
            return
        }
    }
}
