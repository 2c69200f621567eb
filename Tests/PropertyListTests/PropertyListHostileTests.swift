import Foundation
import Testing
@testable import PropertyList

/// Issue 15, rows 1 and 8: the XML depth pre-check cannot be fooled, and XML output is XML.
@Suite("Property lists from hostile hands")
struct PropertyListHostileTests {
    @Test(arguments: ["<!-- </array> -->", "<![CDATA[</array>]]>", "<?x </array> ?>", "<!DOCTYPE x>", "<array/>"])
    func depthCountSeesThroughCommentsAndCDATA(filler: String) {
        let body = String(repeating: "<array>" + filler, count: 200) + String(repeating: "</array>", count: 200)
        #expect(PropertyListFile.xmlNestingDepth(Data(body.utf8)) >= 200)
    }

    @Test func realPlistDepthIsCountedExactly() throws {
        let data = try PropertyListFile.write(["a": ["b": [["c": 1]]]], format: .xml)
        // <dict> <dict> <array> <dict>
        #expect(PropertyListFile.xmlNestingDepth(data) == 4)
    }

    @Test func controlCharactersXMLCannotCarryAreRefused() {
        for bad in ["\u{1B}[2J", "bell\u{7}", "nul\u{0}"] {
            #expect(throws: PropertyListError.self) { try PropertyListFile.write([bad: "x"], format: .xml) }
            #expect(throws: PropertyListError.self) { try PropertyListFile.write(["k": ["list": [.string(bad)]]], format: .xml) }
            // Binary property lists carry any string.
            #expect(throws: Never.self) { try PropertyListFile.write([bad: "x"], format: .binary) }
        }
    }

    @Test func invisibleCharactersBecomeCharacterReferencesAndRoundTrip() throws {
        let key = "evil\u{9B}\u{202E}\u{7F}key"
        let data = try PropertyListFile.write([key: "v\u{2028}"], format: .xml)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("evil&#x9B;&#x202E;&#x7F;key"), "\(text)")
        #expect(!text.unicodeScalars.contains { $0.value == 0x9B || $0.value == 0x202E || $0.value == 0x2028 || $0.value == 0x7F })
        let back = try PropertyListFile.parse(data, path: "round-trip")
        #expect(back.root[key] == "v\u{2028}")
    }
}
