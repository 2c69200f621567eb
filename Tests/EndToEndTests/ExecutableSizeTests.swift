import Foundation
import Testing

/// The executable is argument parsing and wiring (issue 39, item 8): each command's logic lives in
/// the libraries (docs/design.md, "Modules"), so it can be tested without spawning the binary. The
/// bound is on the lines of Sources/atsprobe, counted as `find Sources/atsprobe -name '*.swift' |
/// xargs cat | wc -l` counts them.
@Suite struct ExecutableSizeTests {
    static let limit = 1_500

    /// Each Swift file under `directory`, with its line count (newlines, as `wc -l`).
    static func lineCounts(_ directory: URL) throws -> [(path: String, lines: Int)] {
        guard let walker = FileManager.default.enumerator(atPath: directory.path) else { throw ModuleGraphTests.GraphError("cannot list \(directory.path)") }
        return try walker.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted().map { path in
            let bytes = try Data(contentsOf: directory.appendingPathComponent(path))
            return (path, bytes.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) })
        }
    }

    @Test func theExecutableIsAtMostFifteenHundredLines() throws {
        let counts = try Self.lineCounts(ModuleGraphTests.root.appendingPathComponent("Sources/atsprobe"))
        let total = counts.map(\.lines).reduce(0, +)
        #expect(counts.count >= 10, "found too few files under Sources/atsprobe: \(counts.map(\.path))")
        let largest = counts.sorted { $0.lines > $1.lines }.prefix(5).map { "\($0.path) \($0.lines)" }.joined(separator: ", ")
        #expect(total <= Self.limit,
                "Sources/atsprobe is \(total) lines, more than \(Self.limit): move what is not parsing or wiring into the library it belongs to (docs/design.md); largest: \(largest)")
    }
}
