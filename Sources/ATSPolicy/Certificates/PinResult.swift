/// The pinning judgement for one served chain.
package struct PinResult: Hashable, Sendable, Codable {
    package enum Verdict: String, Hashable, Sendable, Codable {
        /// The entry pins nothing: pinning does not restrict the connection.
        case noPins
        case matched
        case mismatched
    }
    package var verdict: Verdict
    /// nil when the entry has no CA pins; otherwise whether a served CA matched.
    package var caPinMatched: Bool?
    /// nil when the entry has no leaf pins; otherwise whether the leaf matched.
    package var leafPinMatched: Bool?
    /// Chain indices (>= 1) of the CA certificates whose SPKI matched a CA pin.
    package var matchedCAIndices: [Int]
    /// One line for people.
    package var reason: String

    package var isSatisfied: Bool { verdict != .mismatched }
}
