/// "Did you mean ...": the nearest valid key by edit distance, ignoring case.
public enum KeySuggestion {
    /// The candidate closest to `key`, when close enough to be a likely typo: at most two
    /// edits, or one per five characters for long names (ATS keys are 20-45 characters).
    public static func nearest(to key: String, among candidates: [String]) -> String? {
        let typed = Array(key.lowercased().unicodeScalars)
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(typed, Array(candidate.lowercased().unicodeScalars))
            let allowed = max(2, candidate.count / 5)
            guard distance <= allowed else { continue }
            if best == nil || distance < best!.distance { best = (candidate, distance) }
        }
        return best?.name
    }

    /// Levenshtein distance; one row at a time. Keys longer than 256 scalars are not typos of
    /// ATS keys, so they are not compared at all.
    public static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.count > 256 || b.count > 256 { return Int.max }
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
