import Foundation

/// The package's Sources/ read line by line, for the tests that forbid a pattern in code
/// (NoRuleSetDefaultTests, NoPositionalTestReadsTests): comment lines and the lines `skip`
/// names are passed over; each hit is `Sources/PATH:LINE: code`.
enum SourceScan {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources")

    /// How many Swift files were read (a test checks Sources/ was found) and the lines that match.
    static func lines(matching pattern: Regex<AnyRegexOutput>, skip: (String) -> Bool = { _ in false }) throws -> (checked: Int, found: [String]) {
        guard let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil) else { return (0, []) }
        var checked = 0
        var found: [String] = []
        for case let url as URL in files where url.pathExtension == "swift" {
            let text = try String(contentsOf: url, encoding: .utf8)
            checked += 1
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.trimmingCharacters(in: .whitespaces)
                guard !code.hasPrefix("//"), !skip(code), line.contains(pattern) else { continue }
                found.append("\(url.path.replacingOccurrences(of: sources.path, with: "Sources")):\(number + 1): \(code)")
            }
        }
        return (checked, found)
    }
}
