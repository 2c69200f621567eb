import TextSupport
import TLSFacts

/// "Did you mean ...": the nearest valid key by edit distance, ignoring case.
package enum KeySuggestion {
    /// The candidate closest to `key`, when close enough to be a likely typo: at most two
    /// edits, or one per five characters for long names (ATS keys are 20-45 characters).
    package static func nearest(to key: String, among candidates: [String]) -> String? {
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let distance = EditDistance.between(key, candidate, ignoringCase: true)
            let allowed = max(2, candidate.count / 5)
            guard distance <= allowed else { continue }
            if distance < (best?.distance ?? Int.max) { best = (candidate, distance) }
        }
        return best?.name
    }
}
