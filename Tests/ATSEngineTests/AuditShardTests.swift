import Testing
@testable import ATSEngine
import TLSFacts

@Suite("Audit shard")
struct AuditShardTests {
    @Test func parsesKOfNAndRefusesTheRest() throws {
        #expect(try AuditShard.parse("2/8", jobCompletionIndex: nil).get() == AuditShard(index: 2, count: 8))
        #expect(try AuditShard.parse("2/8", jobCompletionIndex: "5").get() == AuditShard(index: 2, count: 8), "K/N ignores the Job's index")
        for bad in ["0/8", "9/8", "2", "2/0", "a/b", "2/8/1", "", "auto", "auto/0", "auto/x"] {
            guard case .failure(let refusal) = AuditShard.parse(bad, jobCompletionIndex: "0") else {
                Issue.record("\(bad) was taken"); continue
            }
            #expect(refusal.description.contains("is not K/N"), "\(bad): \(refusal)")
        }
    }

    /// `auto/N` (issue 41): K is a Kubernetes Indexed Job's JOB_COMPLETION_INDEX (0-based) plus one.
    @Test func autoTakesKFromTheIndexedJobsIndex() throws {
        for index in 0..<3 {
            #expect(try AuditShard.parse("auto/3", jobCompletionIndex: String(index)).get() == AuditShard(index: index + 1, count: 3))
        }
        guard case .failure(let unset) = AuditShard.parse("auto/3", jobCompletionIndex: nil) else {
            Issue.record("auto/3 without JOB_COMPLETION_INDEX was taken"); return
        }
        #expect(unset.description == "--shard auto/3 takes K from JOB_COMPLETION_INDEX (a Kubernetes Indexed Job sets it, 0-based), which is not set")
        for bad in ["3", "-1", "", " 1", "1 ", "+1", "0x1", "99999999999999999999", "1\u{1B}[31m"] {
            guard case .failure(let refusal) = AuditShard.parse("auto/3", jobCompletionIndex: bad) else {
                Issue.record("JOB_COMPLETION_INDEX '\(bad)' was taken"); continue
            }
            #expect(refusal.description.hasPrefix("--shard auto/3: JOB_COMPLETION_INDEX is '"), "\(refusal)")
            #expect(refusal.description.hasSuffix("', not an index from 0 to 2"), "\(refusal)")
            #expect(!refusal.description.contains("\u{1B}"), "escaped: \(refusal)")
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
