import Foundation
import Testing
import TLSFacts
@testable import ATSPolicy
import ATSPolicyFixtures

/// atsprobe reads and writes plists with FoundationEssentials' Codable coders (through
/// PropertyListNode); Foundation's PropertyListSerialization, linked only into the tests, is the
/// independent implementation each result is checked against.
@Suite("Property-list coding")
struct PropertyListCodingTests {
    static let everyType = infoPlistXML("""
        <key>yes</key><true/><key>no</key><false/>
        <key>one</key><integer>1</integer><key>negative</key><integer>-7</integer>
        <key>half</key><real>2.5</real><key>text</key><string>YES &amp; &lt;no&gt;</string>
        <key>bytes</key><data>AAEC</data><key>when</key><date>2020-01-02T03:04:05Z</date>
        <key>list</key><array><string>a</string><integer>5</integer><dict/></array>
        <key>emptyDict</key><dict/><key>emptyArray</key><array/>
        """)

    func parse(_ text: String) throws -> [String: Any] {
        try PropertyListFile.parse(Data(text.utf8), path: "test.plist").root
    }

    @Test func readsExactSwiftTypes() throws {
        let root = try parse(Self.everyType)
        #expect(type(of: root["yes"]!) == Bool.self && root["yes"] as? Bool == true)
        #expect(type(of: root["no"]!) == Bool.self && root["no"] as? Bool == false)
        // An integer 1 is an Int, never a Bool: lint tells <integer>1</integer> from <true/>.
        #expect(type(of: root["one"]!) == Int.self && root["one"] as? Int == 1)
        #expect(PropertyListValueKind(of: root["one"]!) == .integer)
        #expect(PropertyListValueKind(of: root["yes"]!) == .boolean)
        #expect(root["negative"] as? Int == -7)
        #expect(type(of: root["half"]!) == Double.self && root["half"] as? Double == 2.5)
        #expect(root["text"] as? String == "YES & <no>")
        #expect(root["bytes"] as? Data == Data([0, 1, 2]))
        #expect(root["when"] as? Date == Date(timeIntervalSince1970: 1_577_934_245))
        let list = try #require(root["list"] as? [Any])
        #expect(list.count == 3 && list[0] as? String == "a" && list[1] as? Int == 5)
        #expect((list[2] as? [String: Any])?.isEmpty == true)
        #expect(PropertyListValueKind(of: root["emptyDict"]!) == .dictionary)
        #expect(PropertyListValueKind(of: root["emptyArray"]!) == .array)
    }

    @Test func agreesWithFoundationBothWays() throws {
        let document = try PropertyListFile.parse(Data(Self.everyType.utf8), path: "test.plist")
        let foundation = try #require(PropertyListSerialization.propertyList(from: Data(Self.everyType.utf8), format: nil) as? NSDictionary)
        #expect(NSDictionary(dictionary: document.root).isEqual(to: foundation as! [AnyHashable: Any]))
        for format in PropertyListFile.Format.allCases {
            // What atsprobe writes, Foundation reads back equal...
            let written = try PropertyListFile.write(document.root, format: format)
            var detected = PropertyListSerialization.PropertyListFormat.openStep
            let reread = try PropertyListSerialization.propertyList(from: written, format: &detected)
            #expect(detected == (format == .xml ? .xml : .binary))
            #expect((reread as? NSDictionary)?.isEqual(to: foundation as! [AnyHashable: Any]) == true, "\(format)")
            // ...and what Foundation writes, atsprobe reads with the same format detected.
            let theirs = try PropertyListSerialization.data(fromPropertyList: foundation, format: format == .xml ? .xml : .binary, options: 0)
            let ours = try PropertyListFile.parse(theirs, path: "theirs.plist")
            #expect(ours.format == format)
            #expect(NSDictionary(dictionary: ours.root).isEqual(to: foundation as! [AnyHashable: Any]), "\(format)")
        }
    }

    @Test func writesSortedKeysWithXMLEscaped() throws {
        let text = String(decoding: try PropertyListFile.write(["b": "<&>", "a": ["z": true, "y": 3]], format: .xml), as: UTF8.self)
        let keys = text.split(separator: "\n").filter { $0.contains("<key>") }.map { $0.trimmingWhitespace() }
        #expect(keys == ["<key>a</key>", "<key>y</key>", "<key>z</key>", "<key>b</key>"])
        #expect(text.contains("<string>&lt;&amp;&gt;</string>"))
    }

    @Test func refusesValuesWithNoPlistForm() {
        struct Opaque {}
        do {
            _ = try PropertyListFile.write(["outer": ["inner": Opaque()]], format: .binary)
            Issue.record("a struct has no property-list form")
        } catch {
            #expect(error.description == "cannot write property list: 'outer.inner' is not a property-list value")
        }
    }

    @Test func refusesNestingPastTheLimitWithoutRecursingIntoIt() throws {
        let limit = PropertyListNode.maximumDepth
        // Exactly the limit (the root dictionary counts as one level) reads...
        let atLimit = String(repeating: "<array>", count: limit - 1) + String(repeating: "</array>", count: limit - 1)
        #expect(throws: Never.self) { try parse(infoPlistXML("<key>a</key>" + atLimit)) }
        // ...one more is refused, and so is a hostile 200,000 levels (which would overflow the
        // stack if the XML reader ever saw it).
        for depth in [limit, 200_000] {
            let nested = String(repeating: "<array>", count: depth) + String(repeating: "</array>", count: depth)
            #expect(throws: PropertyListError.self) { try parse(infoPlistXML("<key>a</key>" + nested)) }
        }
    }

    @Test func refusesABinaryPlistThatContainsItself() {
        // bplist00: object 0 = {"a": object 2}, 1 = "a", 2 = [object 2]: a cycle.
        var bytes = Array("bplist00".utf8) + [0xD1, 1, 2, 0x51, UInt8(ascii: "a"), 0xA1, 2]
        let offsets: [UInt8] = [8, 11, 13]
        let tableOffset = UInt64(bytes.count)
        bytes += offsets + [0, 0, 0, 0, 0, 0, 1, 1]
        for value in [UInt64(3), 0, tableOffset] { bytes += withUnsafeBytes(of: value.bigEndian, Array.init) }
        #expect(throws: PropertyListError.self) { try PropertyListFile.parse(Data(bytes), path: "cycle.plist") }
    }

    @Test func nestingDepthCountsOnlyOpenContainers() {
        #expect(PropertyListFile.xmlNestingDepth(Data("<plist><dict><key>a</key><array/><dict/></dict></plist>".utf8)) == 1)
        #expect(PropertyListFile.xmlNestingDepth(Data("<dict>\n<array >\n<dict\t>x</dict></array></dict>".utf8)) == 3)
        #expect(PropertyListFile.xmlNestingDepth(Data("<arrayish><dictionary>".utf8)) == 0)
    }
}

@Suite("Text helpers that replace Foundation's")
struct TextHelperTests {
    @Test func trimmingWhitespace() {
        #expect("  a b \t\r\n".trimmingWhitespace() == "a b")
        #expect(" \n ".trimmingWhitespace() == "")
        #expect("x".trimmingWhitespace() == "x")
        #expect("\u{00A0}wide\u{2003}".trimmingWhitespace() == "wide")
    }

    @Test func hexEncoded() {
        #expect([UInt8]([0x00, 0x0A, 0xFF]).hexEncoded() == "000AFF")
        #expect([UInt8]([0xAB, 0x01]).hexEncoded(separator: ":") == "AB:01")
        #expect([UInt8]().hexEncoded() == "")
    }

    @Test(arguments: [(0.0, 0, "0"), (27.6, 0, "28"), (0.04, 1, "0.0"), (0.05, 1, "0.1"), (12.345, 1, "12.3"),
                      (3.0, 2, "3.00"), (-1.25, 1, "-1.3"), (-0.01, 1, "0.0"), (1234567.891, 2, "1234567.89")])
    func fixed(value: Double, digits: Int, expected: String) {
        #expect(value.fixed(digits) == expected)
        if value >= 0, value != 0.05, value != 0.04 {
            #expect(value.fixed(digits) == String(format: "%.\(digits)f", value), "agrees with printf")
        }
    }
}
