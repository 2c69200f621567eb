import Foundation
import Testing

/// Every public or package error that carries text for people carries a code for programs
/// (issue 39, item 7): a caller compares `code`, never the English of `reason`, `message`,
/// `problem`, `description`, `what` or `operation`. This reads Sources/ (TestSupport aside) for a
/// `public` or `package struct` conforming to `Error` with such a stored `String` and no stored
/// `code`.
@Suite struct ErrorCodeTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources")

    /// The public error structs of `text` whose body stores free text and no code.
    static func uncoded(in text: String) -> [String] {
        let declaration = try! Regex(#"(?:public|package) struct (\w+)\s*:[^{]*\bError\b[^{]*\{"#)
        let freeText = try! Regex(#"(let|var) (reason|message|problem|description|what|operation): String\s*(\n|$|//)"#)
        let code = try! Regex(#"(let|var) code: "#)
        var found: [String] = []
        for match in text.matches(of: declaration) {
            // The body: up to the brace that closes the declaration's.
            var depth = 1
            var end = match.range.upperBound
            while end < text.endIndex, depth > 0 {
                if text[end] == "{" { depth += 1 } else if text[end] == "}" { depth -= 1 }
                end = text.index(after: end)
            }
            // Nested types' own members count as the nested type's, not this one's.
            var body = String(text[match.range.upperBound..<end])
            while let nested = body.firstMatch(of: try! Regex(#"\n\s*(public |package )?(struct|enum|final class) \w+[^{]*\{"#)) {
                var inner = 1
                var close = nested.range.upperBound
                while close < body.endIndex, inner > 0 {
                    if body[close] == "{" { inner += 1 } else if body[close] == "}" { inner -= 1 }
                    close = body.index(after: close)
                }
                body.removeSubrange(nested.range.lowerBound..<close)
            }
            if body.contains(freeText) && !body.contains(code) {
                found.append(String(match.output[1].substring ?? ""))
            }
        }
        return found
    }

    @Test func everyPublicErrorWithTextHasACode() throws {
        let files = try #require(FileManager.default.enumerator(at: Self.sources, includingPropertiesForKeys: nil))
        var checked = 0
        var found: [String] = []
        for case let url as URL in files where url.pathExtension == "swift" {
            let path = url.path.replacingOccurrences(of: Self.sources.path, with: "Sources")
            guard !path.hasPrefix("Sources/TestSupport/") else { continue }
            checked += 1
            found += Self.uncoded(in: try String(contentsOf: url, encoding: .utf8)).map { "\(path): \($0)" }
        }
        #expect(checked > 100, "Sources/ not found at \(Self.sources.path)")
        #expect(found.isEmpty, "public errors with free text and no code:\n\(found.joined(separator: "\n"))")
    }

    /// The scan finds what it must (so the test can fail), and not a nested type's code.
    @Test func theScanFindsAnErrorWithoutACode() {
        #expect(Self.uncoded(in: "public struct A: Error, Sendable {\n    public var reason: String\n}\n") == ["A"])
        #expect(Self.uncoded(in: "public struct B: Error {\n    public enum Code { case x }\n    public var code: Code\n    public let message: String\n}\n").isEmpty)
        #expect(Self.uncoded(in: "public struct C: Error {\n    public struct Inner { var code: Int }\n    public let message: String\n}\n") == ["C"])
        #expect(Self.uncoded(in: "public struct D: Error {\n    public var description: String { \"d\" }\n}\n").isEmpty)
        // Package errors count too, and `what` and `operation` are free text as `message` is.
        #expect(Self.uncoded(in: "package struct E: Error, Sendable {\n    package let what: String\n    package let errno: Int32\n}\n") == ["E"])
        #expect(Self.uncoded(in: "    package struct F: Error {\n        package let operation: String\n    }\n") == ["F"])
    }
}
