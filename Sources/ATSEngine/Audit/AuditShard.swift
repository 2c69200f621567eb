import TLSFacts

/// `--shard K/N`: this run takes the K-th of N disjoint shares of the input, so N machines
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

    /// "K/N" with 1 <= K <= N; nil otherwise.
    public init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), n >= 1, (1...n).contains(k) else { return nil }
        self.init(index: k, count: n)
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
