import Foundation
import Testing

/// docs/design.md shows the module graph; Package.swift is the graph. These keep the two equal,
/// so the picture a newcomer reads first is never out of date.
@Suite struct ModuleGraphTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func read(_ relativePath: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(relativePath), encoding: .utf8)
    }

    /// Each target Package.swift declares, with the names it depends on (targets and products).
    static func declaredGraph() throws -> [String: Set<String>] {
        let manifest = try read("Package.swift")
        guard let targetsStart = manifest.range(of: "targets: [") else { throw GraphError("Package.swift has no targets list") }
        let body = manifest[targetsStart.upperBound...]
        // A declaration starts a line indented by eight spaces; dependencies nested inside one
        // (`.target(name: "atsprobe")`, `.product(...)`) are indented further or share its line.
        let starts = body.ranges(of: /\n {8}\.(target|executableTarget|systemLibrary|testTarget)\(/).map(\.lowerBound)
        var graph: [String: Set<String>] = [:]
        for (index, start) in starts.enumerated() {
            let chunk = String(body[start..<(index + 1 < starts.count ? starts[index + 1] : body.endIndex)])
            guard let name = chunk.firstMatch(of: /name: "(\w+)"/)?.1 else { throw GraphError("a target without a name: \(chunk)") }
            var dependencies: Set<String> = []
            if let list = chunk.firstMatch(of: /dependencies: \[((?:.|\n)*?)\]\s*[,)]/)?.1 {
                // A product's package (`package: "hummingbird"`) is not a dependency of its own.
                for match in list.replacing(/package: "[^"]*"/, with: "").matches(of: /(?:\.product\(name: |\.target\(name: )?"(\w+)"/) {
                    dependencies.insert(String(match.1))
                }
            }
            graph[String(name)] = dependencies
        }
        return graph
    }

    /// The fenced block under "## Module graph": `Name -> A, B` or `Name -> (nothing)`.
    static func documentedGraph() throws -> [String: Set<String>] {
        let design = try read("docs/design.md")
        guard let heading = design.range(of: "## Module graph"),
              let open = design.range(of: "```\n", range: heading.upperBound..<design.endIndex),
              let close = design.range(of: "```", range: open.upperBound..<design.endIndex) else {
            throw GraphError("docs/design.md has no module graph block")
        }
        var graph: [String: Set<String>] = [:]
        for line in design[open.upperBound..<close.lowerBound].split(separator: "\n") {
            let sides = line.components(separatedBy: " -> ")
            guard sides.count == 2 else { throw GraphError("not 'Name -> deps': \(line)") }
            graph[sides[0]] = sides[1] == "(nothing)" ? [] : Set(sides[1].components(separatedBy: ", "))
        }
        return graph
    }

    struct GraphError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    @Test func designShowsExactlyThePackageGraph() throws {
        let declared = try Self.declaredGraph()
        let documented = try Self.documentedGraph()
        #expect(declared.count >= 20, "the parser found too few targets: \(declared.keys.sorted())")
        for name in Set(declared.keys).union(documented.keys).sorted() {
            #expect(documented[name] == declared[name],
                    "\(name): design.md says \(documented[name]?.sorted() ?? []), Package.swift \(declared[name]?.sorted() ?? [])")
        }
    }

    /// The data-flow picture at the top of docs/design.md (its first fenced block) names every
    /// Swift module the program is built from: each target but the C modules, the test targets,
    /// test support and fixtures, and the example.
    @Test func theDataFlowPictureNamesEveryModuleOfTheProgram() throws {
        let design = try Self.read("docs/design.md")
        guard let open = design.range(of: "```\n"), let close = design.range(of: "```", range: open.upperBound..<design.endIndex) else {
            throw GraphError("docs/design.md has no picture")
        }
        let words = Set(design[open.upperBound..<close.lowerBound].split { !$0.isLetter && !$0.isNumber }.map(String.init))
        let notInThePicture: Set<String> = ["TestSupport", "ATSTestServers", "ATSPolicyFixtures", "ATSAppFixtures", "EmbeddingExample"]
        let modules = try Self.declaredGraph().keys.filter { name in
            !name.hasSuffix("Tests") && !notInThePicture.contains(name)
                && !(name.hasPrefix("C") && name.dropFirst().first?.isUppercase == true)  // COpenSSL, CEpoll, CATSProbeShims...
        }
        #expect(modules.count >= 15, "the parser found too few modules: \(modules.sorted())")
        for name in modules.sorted() {
            #expect(words.contains(name), "docs/design.md's picture does not show \(name)")
        }
    }

    @Test func everyLibraryHasARowInTheModuleTable() throws {
        let design = try Self.read("docs/design.md")
        let libraries = try Self.declaredGraph().keys.filter { !$0.hasSuffix("Tests") }
        for name in libraries.sorted() {
            #expect(design.contains("| `\(name)` |"), "docs/design.md's module table has no row for \(name)")
        }
    }
}
