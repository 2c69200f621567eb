/// The OS releases a rule set stands for, declared once with the rule set (`RuleSet.releases`):
/// the first and last iOS and macOS release whose behaviour it models (nil last: the current
/// release and later). `diagnose --rules all` orders its columns by it and prints it in every
/// header, so no two columns claim the same release (`RuleSet.inReleaseOrder`, checked by
/// `RuleSetTests`). Apple's documentation (`documented`) is no release and has none.
public struct ReleaseRange: Sendable, Hashable, Comparable {
    /// One OS version, major and minor ("15.4", "13").
    public struct Version: Sendable, Hashable, Comparable, CustomStringConvertible {
        public var major: Int
        public var minor: Int

        public init(_ major: Int, _ minor: Int = 0) {
            self.major = major
            self.minor = minor
        }

        public static func < (a: Version, b: Version) -> Bool { (a.major, a.minor) < (b.major, b.minor) }
        public var description: String { minor == 0 ? "\(major)" : "\(major).\(minor)" }
    }

    public var iOSFirst: Version
    /// nil: the newest release and later.
    public var iOSLast: Version?
    public var macOSFirst: Version
    public var macOSLast: Version?

    public init(iOS first: Version, through last: Version?, macOS macFirst: Version, through macLast: Version?) {
        iOSFirst = first
        iOSLast = last
        macOSFirst = macFirst
        macOSLast = macLast
    }

    /// "iOS 13 - 15.3", "iOS 26 and later": the column header.
    public var iOSText: String { Self.text("iOS", iOSFirst, iOSLast) }
    /// "macOS 10.15 - 12.2".
    public var macOSText: String { Self.text("macOS", macOSFirst, macOSLast) }
    /// "iOS 13 - 15.3, macOS 10.15 - 12.2".
    public var text: String { iOSText + ", " + macOSText }

    private static func text(_ os: String, _ first: Version, _ last: Version?) -> String {
        guard let last else { return "\(os) \(first) and later" }
        return first == last ? "\(os) \(first)" : "\(os) \(first) - \(last)"
    }

    /// Whether the two ranges claim a common iOS or macOS release (a last of 15.3 covers every
    /// 15.3.x; the next range starts at 15.4).
    public func overlaps(_ other: ReleaseRange) -> Bool {
        func overlap(_ a: Version, _ aLast: Version?, _ b: Version, _ bLast: Version?) -> Bool {
            (bLast.map { a <= $0 } ?? true) && (aLast.map { b <= $0 } ?? true)
        }
        return overlap(iOSFirst, iOSLast, other.iOSFirst, other.iOSLast)
            || overlap(macOSFirst, macOSLast, other.macOSFirst, other.macOSLast)
    }

    public static func < (a: ReleaseRange, b: ReleaseRange) -> Bool { a.iOSFirst < b.iOSFirst }

    /// One release of one OS, as `--rules` takes it: `ios16`, `ios17.2`, `macos14`, `macos10.15`.
    public struct Release: Sendable, Hashable, CustomStringConvertible {
        public enum OS: String, Sendable, Hashable { case iOS = "ios", macOS = "macos" }
        public var os: OS
        public var version: Version

        public init(_ os: OS, _ version: Version) {
            self.os = os
            self.version = version
        }

        /// `ios` or `macos`, then a major version and at most one minor (each 1-3 digits); nil otherwise.
        public init?(parsing text: String) {
            let lowered = text.lowercased()
            guard let os = [OS.macOS, .iOS].first(where: { lowered.hasPrefix($0.rawValue) }) else { return nil }
            let parts = lowered.dropFirst(os.rawValue.count).split(separator: ".", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count),
                  parts.allSatisfy({ (1...3).contains($0.count) && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
                  let major = Int(parts[0]), let minor = parts.count == 2 ? Int(parts[1]) : 0 else { return nil }
            self.init(os, Version(major, minor))
        }

        public var description: String { "\(os == .iOS ? "iOS" : "macOS") \(version)" }
    }

    /// Whether the range covers `release`: a last of 15.3 covers every 15.3.x, a last of 16
    /// (no minor) every 16.x.
    public func contains(_ release: Release) -> Bool {
        let (first, last) = release.os == .iOS ? (iOSFirst, iOSLast) : (macOSFirst, macOSLast)
        guard first <= release.version else { return false }
        guard let last else { return true }
        return last.minor == 0 ? release.version.major <= last.major : release.version <= last
    }
}
