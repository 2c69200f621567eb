import ATSPolicy

/// One sentence per reason: the advisor's facts ("server chose X under every offer ...") and the
/// reasons they are joined to ("...; the server chooses X, which this offer does not include")
/// often name the same suites. A clause that only says which suite the server chose is dropped
/// when the text it joins already names every suite in it.
enum RepeatedClauses {
    /// `text` split at "; ", without the clauses `said` already covers.
    static func without(_ text: String, coveredBy said: String) -> String {
        text.components(separatedBy: "; ").filter { !isCovered($0, by: said) }.joined(separator: "; ")
    }

    static func isCovered(_ clause: String, by said: String) -> Bool {
        let lower = clause.lowercased()
        let bare = lower.hasPrefix("the ") ? String(lower.dropFirst(4)) : lower
        if said.lowercased().contains(bare) { return true }
        guard bare.hasPrefix("server chose") || bare.hasPrefix("server chooses") else { return false }
        let suites = clause.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "(" || $0 == ")" })
            .filter { $0.hasPrefix("TLS_") }
        return !suites.isEmpty && suites.allSatisfy { said.contains($0) }
    }
}
