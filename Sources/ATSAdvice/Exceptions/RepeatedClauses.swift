import ATSPolicy

/// The advisor's facts ("server chose X under every offer ...") and the reasons they are joined
/// to ("...; the server chooses X, which this offer does not include") often name the same
/// suites or protocol. Reasons and evidence are kept as clauses (`FailureReason.clauses`,
/// `KeyEvidence`), and a whole clause the facts already say is left out when they are rendered:
/// one that repeats a fact, or one that only says which suites the server chose when the facts
/// name every one of them.
enum RepeatedClauses {
    /// `clauses` without those `said` already covers.
    static func without(_ clauses: [String], coveredBy said: String) -> [String] {
        clauses.filter { !isCovered($0, by: said) }
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
