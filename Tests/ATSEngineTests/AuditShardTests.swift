import Testing
@testable import ATSEngine
import TLSFacts

@Suite("Audit shard")
struct AuditShardTests {
    @Test func parsesKOfNAndRefusesTheRest() {
        #expect(AuditShard(parsing: "2/8") == AuditShard(index: 2, count: 8))
        for bad in ["0/8", "9/8", "2", "2/0", "a/b", "2/8/1", ""] {
            #expect(AuditShard(parsing: bad) == nil, "\(bad)")
        }
    }

    /// N shards of the same input take every key exactly once between them.
    @Test func sharesAreDisjointAndCoverEveryKey() {
        let keys = (0..<500).map { "https://host\($0).example:443" }
        let shards = (1...7).map { AuditShard(index: $0, count: 7) }
        for key in keys {
            #expect(shards.filter { $0.owns(key: key) }.count == 1, "\(key)")
        }
        #expect(shards.allSatisfy { shard in keys.contains { shard.owns(key: $0) } }, "a shard took nothing")
    }
}
