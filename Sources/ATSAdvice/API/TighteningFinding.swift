import ATSPolicy

/// One way the app's dictionary differs from what the checked hosts need.
public struct TighteningFinding: Sendable, Hashable, Codable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable, Codable {
        /// The key (or entry) can go: no checked host needs it.
        case unnecessary
        /// The key weakens ATS more than the hosts need: a narrower value is enough.
        case tooWide
        /// A load fails: the hosts need more than the dictionary allows.
        case insufficient
    }

    public var kind: Kind
    /// Dotted key path from NSAppTransportSecurity; domain keys are escaped.
    public var keyPath: String
    /// The value as the app has it ("TLSv1.0", "true", "absent").
    public var appValue: String
    /// The value the tightened dictionary has ("absent" when the key goes).
    public var neededValue: String
    /// One line: why.
    public var message: String

    public init(kind: Kind, keyPath: String, appValue: String, neededValue: String, message: String) {
        self.kind = kind
        self.keyPath = keyPath
        self.appValue = appValue
        self.neededValue = neededValue
        self.message = message
    }

    public var description: String { "\(kind.rawValue) \(keyPath): \(appValue) -> \(neededValue): \(message)" }
}
