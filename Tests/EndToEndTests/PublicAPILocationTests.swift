import Foundation
import Testing

/// The curated API (issue 39, item 6; docs/embedding.md, "The public API"): every `public`
/// declaration of the package sits in a library product's `Sources/PRODUCT/API/` folder, so the
/// public surface is what those folders hold; everything else is `package` or narrower, and a
/// module that is no product (TextSupport, OpenSSLSupport, ATSFiles, the test support, the
/// executable) has no `public` at all. APIDescriptionTests then compares that surface with api/.
@Suite struct PublicAPILocationTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Files whose public declarations wait for another change, each with the reason. An entry
    /// whose file has no public declaration left fails `noExemptionIsStale`: delete it then.
    static let pending: [String: String] = [:]

    /// The targets of Package.swift's library products, read from the manifest's text (as
    /// scripts/api-description reads them).
    static func productTargets() throws -> Set<String> {
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        var targets: Set<String> = []
        for match in manifest.matches(of: try Regex(#"\.library\(\s*name:\s*"[^"]+",\s*targets:\s*\[([^\]]*)\]"#)) {
            guard let list = match.output[1].substring else { continue }
            for name in list.matches(of: try Regex(#""([^"]+)""#)) {
                if let target = name.output[1].substring { targets.insert(String(target)) }
            }
        }
        return targets
    }

    /// The lines of `text` whose code (outside comments and string literals) carries the modifier
    /// `public`, as 1-based line numbers.
    static func publicLines(_ text: String) -> [Int] {
        var lines: [Int] = []
        var line = 1
        var blockDepth = 0
        var inString = false
        var inMultilineString = false
        var word = ""
        let characters = Array(text.unicodeScalars)
        var index = 0
        func endWord() {
            if word == "public", lines.last != line { lines.append(line) }
            word = ""
        }
        while index < characters.count {
            let character = characters[index]
            let next: Unicode.Scalar? = index + 1 < characters.count ? characters[index + 1] : nil
            if character == "\n" { endWord(); line += 1; inString = false; index += 1; continue }
            if blockDepth > 0 {
                if character == "*", next == "/" { blockDepth -= 1; index += 2 } else if character == "/", next == "*" { blockDepth += 1; index += 2 } else { index += 1 }
                continue
            }
            if inMultilineString {
                if character == "\"", next == "\"", index + 2 < characters.count, characters[index + 2] == "\"" { inMultilineString = false; index += 3 } else { index += 1 }
                continue
            }
            if inString {
                if character == "\\" { index += 2 } else { if character == "\"" { inString = false }; index += 1 }
                continue
            }
            if character == "/", next == "/" {
                endWord()
                while index < characters.count, characters[index] != "\n" { index += 1 }
                continue
            }
            if character == "/", next == "*" { endWord(); blockDepth = 1; index += 2; continue }
            if character == "\"" {
                endWord()
                if next == "\"", index + 2 < characters.count, characters[index + 2] == "\"" { inMultilineString = true; index += 3 } else { inString = true; index += 1 }
                continue
            }
            if character.properties.isAlphabetic || character == "_" || ("0"..."9").contains(character) {
                word.unicodeScalars.append(character)
            } else {
                endWord()
            }
            index += 1
        }
        endWord()
        return lines
    }

    @Test func everyPublicDeclarationIsInAProductsAPIFolder() throws {
        let products = try Self.productTargets()
        #expect(products.contains("ATSEngine") && products.contains("TLSFacts"), "no library products read from Package.swift: \(products)")
        let sources = Self.root.appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        var checked = 0
        var outside: [String] = []
        for case let url as URL in files where url.pathExtension == "swift" {
            let relative = String(url.path.dropFirst(sources.path.count + 1))
            let parts = relative.split(separator: "/")
            checked += 1
            let inAPI = parts.count > 2 && products.contains(String(parts[0])) && parts[1] == "API"
            if inAPI || Self.pending.keys.contains(where: { relative.hasPrefix($0) }) { continue }
            let text = try String(contentsOf: url, encoding: .utf8)
            for number in Self.publicLines(text) {
                outside.append("Sources/\(relative):\(number)")
            }
        }
        #expect(checked > 200, "Sources/ not found at \(sources.path)")
        #expect(outside.isEmpty, "\(outside.count) public declarations outside a product's API/ folder (make them package, or move an API type's file into Sources/PRODUCT/API/ and list it in docs/embedding.md):\n\(outside.prefix(60).joined(separator: "\n"))")
    }

    /// Every product's API folder holds at least one public declaration, and each file in it does
    /// (an API folder is the API, not a place for internals).
    @Test func everyAPIFileDeclaresPublicAPI() throws {
        let sources = Self.root.appendingPathComponent("Sources")
        var empty: [String] = []
        for product in try Self.productTargets().sorted() {
            let folder = sources.appendingPathComponent(product).appendingPathComponent("API")
            guard let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else {
                empty.append("Sources/\(product)/API/ (no such folder)")
                continue
            }
            for case let url as URL in files where url.pathExtension == "swift" {
                if Self.publicLines(try String(contentsOf: url, encoding: .utf8)).isEmpty {
                    empty.append("Sources/\(product)/API/\(url.lastPathComponent)")
                }
            }
        }
        #expect(empty.isEmpty, "API files without a public declaration (move them out of API/):\n\(empty.joined(separator: "\n"))")
    }

    @Test func noExemptionIsStale() throws {
        let sources = Self.root.appendingPathComponent("Sources")
        for prefix in Self.pending.keys.sorted() {
            var found = false
            let start = sources.appendingPathComponent(prefix)
            if prefix.hasSuffix("/"), let files = FileManager.default.enumerator(at: start, includingPropertiesForKeys: nil) {
                for case let url as URL in files where url.pathExtension == "swift" {
                    if !Self.publicLines(try String(contentsOf: url, encoding: .utf8)).isEmpty { found = true; break }
                }
            } else if let text = try? String(contentsOf: start, encoding: .utf8) {
                found = !Self.publicLines(text).isEmpty
            }
            #expect(found, "Sources/\(prefix) has no public declaration left: delete its exemption")
        }
    }

    /// The scanner finds what it must, so the test can fail.
    @Test func theScannerFindsPublicModifiersInCodeOnly() {
        let text = """
        public struct A {
            // public in a comment
            let s = "public in a string"
            /* public
               in a block */ package var x = 1
            public private(set) var y = 2
        }
        """
        #expect(Self.publicLines(text) == [1, 6])
    }
}
