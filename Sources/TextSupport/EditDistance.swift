/// How far apart two spellings are, for every "did you mean" atsprobe prints (Info.plist keys
/// and values in lint, commands and options on the command line): one routine, so a typo is
/// judged the same way wherever it is made.
package enum EditDistance {
    /// Beyond this many Unicode scalars a word is not a typo of anything atsprobe knows (ATS keys
    /// are 20-45 characters), so it is not compared: distance is `Int.max`.
    package static let longestCompared = 256

    /// The optimal-string-alignment distance: insertions, deletions, substitutions and swaps of
    /// two adjacent characters each count one ("NSAllwosArbitraryLoads" is one edit away).
    /// Compares Unicode scalars; `ignoringCase` lowercases both first. Three rows at a time.
    package static func between(_ first: String, _ second: String, ignoringCase: Bool = false) -> Int {
        let a = Array((ignoringCase ? first.lowercased() : first).unicodeScalars)
        let b = Array((ignoringCase ? second.lowercased() : second).unicodeScalars)
        if a.count > longestCompared || b.count > longestCompared { return Int.max }
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var beforePrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], beforePrevious[j - 2] + 1)
                }
            }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[b.count]
    }
}
