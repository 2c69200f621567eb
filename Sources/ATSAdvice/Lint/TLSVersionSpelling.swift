import ATSPolicy

/// How Apple reads NSExceptionMinimumTLSVersion: only "TLSv1." followed by one digit 0-3 is
/// understood; anything else ("1.2", "tlsv1.1", "TLSv1.2 ", "TLSv1.4") is ignored and the
/// minimum silently stays TLSv1.2.
enum TLSVersionSpelling {
    static let accepted = ["TLSv1.0", "TLSv1.1", "TLSv1.2", "TLSv1.3"]
    static let defaultValue = "TLSv1.2"

    /// The minor version (0-3) when Apple parses the string, else nil: the one parser the
    /// effective policy uses too (DomainException.parseMinimumTLSVersion).
    static func minor(of value: String) -> Int? {
        DomainException.parseMinimumTLSVersion(value).map { Int($0.rawValue) - 0x0301 }
    }

    /// The accepted spelling the user most likely meant ("tlsv1.1" -> "TLSv1.1"), if any.
    static func intended(_ value: String) -> String? {
        var text = value.lowercased().filter { !$0.isWhitespace && $0 != "_" && $0 != "-" }
        for prefix in ["tlsv", "tls", "v"] where text.hasPrefix(prefix) {
            text.removeFirst(prefix.count)
            break
        }
        let candidate = "TLSv" + text
        return accepted.contains(candidate) ? candidate : nil
    }
}
