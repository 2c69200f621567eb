import TextSupport
import TLSFacts

/// `--shard K/N` (or `auto/N`): this run takes the K-th of N disjoint shares of the input, so N machines
/// given the same input and K = 1...N audit every target exactly once between them.
public struct AuditShard: Sendable, Equatable {
    /// 1-based.
    public let index: Int
    public let count: Int

    public static let whole = AuditShard(index: 1, count: 1)

    public init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// The environment variable a Kubernetes Indexed Job sets in each pod: 0...completions-1.
    public static let jobIndexVariable = "JOB_COMPLETION_INDEX"

    /// `--shard`'s value: "K/N" with 1 <= K <= N, or "auto/N", where K is `jobCompletionIndex`
    /// (JOB_COMPLETION_INDEX's value, nil when unset) plus one, so an Indexed Job's container
    /// args need no shell arithmetic (docs/audit.md). A refusal is one line saying why.
    public static func parse(_ text: String, jobCompletionIndex: String?) -> Result<AuditShard, Refusal> {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let n = Int(parts[1]), n >= 1 else {
            return .failure(Refusal(.malformed, "--shard '\(UntrustedText.escape(text, limit: 80))' is not K/N with 1 <= K <= N (e.g. 2/8) or auto/N"))
        }
        if parts[0] == "auto" {
            guard let value = jobCompletionIndex else {
                return .failure(Refusal(.jobIndexUnset, "--shard auto/\(n) takes K from \(jobIndexVariable) (a Kubernetes Indexed Job sets it, 0-based), which is not set"))
            }
            guard value.utf8.count <= 19, value.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let index = Int(value), index < n else {
                return .failure(Refusal(.jobIndexOutOfRange, "--shard auto/\(n): \(jobIndexVariable) is '\(UntrustedText.escape(value, limit: 80))', not an index from 0 to \(n - 1)"))
            }
            return .success(AuditShard(index: index + 1, count: n))
        }
        guard let k = Int(parts[0]), (1...n).contains(k) else {
            return .failure(Refusal(.malformed, "--shard '\(UntrustedText.escape(text, limit: 80))' is not K/N with 1 <= K <= N (e.g. 2/8) or auto/N"))
        }
        return .success(AuditShard(index: k, count: n))
    }

    /// Why a `--shard` value was refused.
    public struct Refusal: Error, Equatable, CustomStringConvertible {
        /// What is wrong, for code: callers compare this, never `description`'s text.
        public enum Code: String, Sendable, Hashable, CaseIterable {
            /// Not K/N with 1 <= K <= N, nor auto/N.
            case malformed
            /// auto/N without the job index variable.
            case jobIndexUnset
            /// auto/N with a job index outside 0 to N-1.
            case jobIndexOutOfRange
        }

        public let code: Code
        /// For people: the value and what is wrong.
        public let description: String
        init(_ code: Code, _ description: String) {
            self.code = code
            self.description = description
        }
    }

    /// A target belongs to the shard its normalised authority hashes to, wherever it sits in
    /// the input, so reordering or concatenating input files never moves a host between shards.
    public func owns(key: String) -> Bool {
        count == 1 || Int(Self.fnv1a(key) % UInt64(count)) == index - 1
    }

    /// A target's key: its scheme and normalised authority.
    public static func key(of target: Target) -> String { "\(target.scheme.rawValue)://\(target.authority)" }

    /// FNV-1a, 64-bit: stable across runs, machines and Swift versions (Hasher is seeded per run).
    public static func fnv1a(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return hash
    }
}
