/// A duration as people write one on atsprobe's command line and in serve's config: "90d"
/// (days), "12w" (weeks), "36h", "30m", "3600s" or a bare number of seconds. One parser for
/// `--forecast` and the config's `cache_ttl`, `timeout` and `forecast` (docs/serve.md).
package enum DurationText {
    static let units: [Character: Int] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400, "w": 604_800]

    /// Whole seconds between 1 and `maximum`, or nil for anything else (no sign, no fraction,
    /// ASCII digits only, no overflow).
    package static func seconds(_ text: String, maximum: Int) -> Int? {
        var digits = Substring(text.lowercased())
        var unit = 1
        if let last = digits.last, let scale = units[last] {
            unit = scale
            digits = digits.dropLast()
        }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let count = Int(digits), count > 0,
              count <= maximum / unit else { return nil }
        return count * unit
    }
}
