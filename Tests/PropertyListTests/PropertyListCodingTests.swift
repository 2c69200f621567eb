import Foundation
import Testing
import TestSupport
import TextSupport
import TLSFacts
@testable import PropertyList

/// atsprobe reads and writes plists with FoundationEssentials' Codable coders (through
/// PropertyListDecoding and PropertyListValue: Encodable); Foundation's PropertyListSerialization,
/// linked only into the tests, is the independent implementation each result is checked against.
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

    static let everyTypeValue: [String: PropertyListValue] = [
        "yes": true, "no": false, "one": 1, "negative": -7, "half": 2.5, "text": "YES & <no>",
        "bytes": .data(Data([0, 1, 2])), "when": .date(Date(timeIntervalSince1970: 1_577_934_245)),
        "list": ["a", 5, [:]], "emptyDict": [:], "emptyArray": [],
    ]

    /// One value of each type, edge cases included (dates in whole seconds: XML keeps no fraction).
    static let samples: [PropertyListValue] = [
        true, false, 0, 1, -1, .integer(Int.max), .integer(Int.min), 9_007_199_254_740_993,
        0.0, 1.0, 1.5, -2.25, 1e300, .real(Double.leastNonzeroMagnitude),
        "", "YES", "1", "caf\u{E9} \u{1F600} <&>", .data(Data()), .data(Data((0...255).map(UInt8.init))),
        .date(Date(timeIntervalSince1970: 0)), .date(Date(timeIntervalSince1970: -86_400 * 365)),
        [], [1, 1.0, true, "1"], [:], ["nested": ["deeper": [1, 2, ["k": "v"]]]],
    ]

    func parse(_ text: String) throws -> [String: PropertyListValue] {
        try PropertyListFile.parse(Data(text.utf8), path: "test.plist").root
    }

    @Test func readsExactTypes() throws {
        let root = try parse(Self.everyType)
        #expect(root == Self.everyTypeValue)
        // An integer 1 is an integer, never a boolean: lint tells <integer>1</integer> from <true/>.
        #expect(root["one"]?.kind == .integer && root["yes"]?.kind == .boolean && root["half"]?.kind == .real)
    }

    @Test(arguments: PropertyListFile.Format.allCases)
    func agreesWithFoundationBothWays(format: PropertyListFile.Format) throws {
        let theirFormat: PropertyListSerialization.PropertyListFormat = format == .xml ? .xml : .binary
        let foundation = try PropertyListSerialization.propertyList(from: Data(Self.everyType.utf8), format: nil)
        #expect(FoundationBridge.value(foundation) == .dictionary(Self.everyTypeValue))
        // What atsprobe writes, Foundation reads back equal, in the format asked for...
        let written = try PropertyListFile.write(Self.everyTypeValue, format: format)
        var detected = PropertyListSerialization.PropertyListFormat.openStep
        let reread = try PropertyListSerialization.propertyList(from: written, format: &detected)
        #expect(detected == theirFormat)
        #expect(FoundationBridge.value(reread) == .dictionary(Self.everyTypeValue))
        // ...and what Foundation writes, atsprobe reads with the same format detected.
        let theirs = try PropertyListSerialization.data(fromPropertyList: foundation, format: theirFormat, options: 0)
        let ours = try PropertyListFile.parse(theirs, path: "theirs.plist")
        #expect(ours.format == format)
        #expect(ours.root == Self.everyTypeValue)
    }

    /// Every type and its edges, both formats, both directions, judged by Foundation.
    @Test(arguments: PropertyListFile.Format.allCases)
    func everyTypeRoundTripsAgainstFoundation(format: PropertyListFile.Format) throws {
        let theirFormat: PropertyListSerialization.PropertyListFormat = format == .xml ? .xml : .binary
        for sample in Self.samples {
            let root: [String: PropertyListValue] = ["v": sample]
            let ours = try PropertyListFile.write(root, format: format)
            #expect(FoundationBridge.value(try PropertyListSerialization.propertyList(from: ours, format: nil)) == .dictionary(root),
                    "Foundation reads what atsprobe wrote: \(sample) (\(format))")
            #expect(try PropertyListFile.parse(ours, path: "ours").root == root, "\(sample) (\(format))")
            let theirs = try PropertyListSerialization.data(fromPropertyList: FoundationBridge.object(.dictionary(root)), format: theirFormat, options: 0)
            #expect(try PropertyListFile.parse(theirs, path: "theirs").root == root, "atsprobe reads what Foundation wrote: \(sample) (\(format))")
        }
    }

    @Test func integerRealAndBooleanStayApart() throws {
        let root = try parse(infoPlistXML("<key>i</key><integer>1</integer><key>r</key><real>1</real><key>b</key><true/>"))
        #expect(root == ["i": .integer(1), "r": .real(1), "b": .boolean(true)])
        #expect(root["i"] != root["b"] && root["i"] != root["r"] && root["r"] != root["b"])
        let text = String(decoding: try PropertyListFile.write(root, format: .xml), as: UTF8.self)
        #expect(text.contains("<key>i</key>\n\t<integer>1</integer>"), "\(text)")
        #expect(text.contains("<key>r</key>\n\t<real>1</real>"), "\(text)")
        #expect(text.contains("<key>b</key>\n\t<true/>"), "\(text)")
        let binary = try PropertyListFile.parse(PropertyListFile.write(root, format: .binary), path: "binary")
        #expect(binary.root == root)
    }

    @Test func lenientReadersReadAsAppleDoes() {
        let yes: [PropertyListValue] = [true, 1, -3, 0.5, "YES", "yes", "true", "TRUE", "1"]
        let no: [PropertyListValue] = [false, 0, 0.0, "NO", "no", "false", "0"]
        let neither: [PropertyListValue] = ["maybe", "", " YES", [], [:], .data(Data([1])), .date(Date(timeIntervalSince1970: 1))]
        for value in yes { #expect(value.boolValue == true, "\(value)") }
        for value in no { #expect(value.boolValue == false, "\(value)") }
        for value in neither { #expect(value.boolValue == nil, "\(value)") }
        // The strict reading lint uses: only a real boolean.
        #expect(PropertyListValue.integer(1).exactBool == nil && PropertyListValue.string("YES").exactBool == nil)
        #expect(PropertyListValue.boolean(false).exactBool == false)
        #expect(PropertyListValue.integer(1).stringValue == nil && PropertyListValue.string("a").stringValue == "a")
        #expect(PropertyListValue.dictionary(["a": 1])["a"] == 1 && PropertyListValue.array([1])["a"] == nil)
        #expect(PropertyListValue.Kind.allCases.map(\.withArticle)
            == ["a boolean", "an integer", "a real", "a string", "data", "a date", "an array", "a dictionary"])
    }

    /// The defect the typed value fixes: the old JSON path turned every integer into a Double, so
    /// 2^53 + 1 came out as 9007199254740992.
    @Test func jsonKeepsIntegersAsIntegers() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        let value: PropertyListValue = ["one": 1, "half": 1.5, "big": 9_007_199_254_740_993, "max": .integer(Int.max), "yes": true,
                                        "text": "x", "bytes": .data(Data([0, 1, 2])), "when": .date(Date(timeIntervalSince1970: 0)),
                                        "list": [1, 2.5, [:]]]
        let json = String(decoding: try encoder.encode(value), as: UTF8.self)
        #expect(json == #"{"big":9007199254740993,"bytes":"AAEC","half":1.5,"list":[1,2.5,{}],"max":9223372036854775807,"one":1,"text":"x","when":"1970-01-01T00:00:00Z","yes":true}"#)
        // Read back: JSON has no data or date type, so those return as strings; numbers keep their kind.
        let back = try JSONDecoder().decode(PropertyListValue.self, from: Data(json.utf8))
        #expect(back["one"] == 1 && back["half"] == 1.5 && back["big"] == 9_007_199_254_740_993 && back["yes"] == true)
        #expect(back["bytes"] == "AAEC" && back["list"] == [1, 2.5, [:]])
        // The JSON reading has the plist reading's depth bound.
        let deep = String(repeating: "[", count: PropertyListValue.maximumDepth + 2) + String(repeating: "]", count: PropertyListValue.maximumDepth + 2)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(PropertyListValue.self, from: Data(deep.utf8)) }
    }

    @Test func writesSortedKeysWithXMLEscaped() throws {
        let text = String(decoding: try PropertyListFile.write(["b": "<&>", "a": ["z": true, "y": 3]], format: .xml), as: UTF8.self)
        let keys = text.split(separator: "\n").filter { $0.contains("<key>") }.map { $0.trimmingWhitespace() }
        #expect(keys == ["<key>a</key>", "<key>y</key>", "<key>z</key>", "<key>b</key>"])
        #expect(text.contains("<string>&lt;&amp;&gt;</string>"))
    }

    @Test func refusesNestingPastTheLimitWithoutRecursingIntoIt() throws {
        let limit = PropertyListValue.maximumDepth
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

    /// Binary plists have no text to pre-scan: the decoder's own depth check refuses them.
    @Test func refusesDeepBinaryNesting() throws {
        func nested(_ depth: Int) throws -> Data {
            var object: Any = [String]()
            for _ in 1..<depth { object = [object] }
            return try PropertyListSerialization.data(fromPropertyList: ["a": object], format: .binary, options: 0)
        }
        let limit = PropertyListValue.maximumDepth
        #expect(throws: Never.self) { try PropertyListFile.parse(nested(limit - 1), path: "at-limit.plist") }
        #expect(throws: PropertyListError.self) { try PropertyListFile.parse(nested(limit + 1), path: "deep.plist") }
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

    /// A binary trailer that claims 2^64-1 objects, or an offset table past the end: refused
    /// as "not a property list", without trusting the counts.
    @Test func refusesABinaryPlistWithLyingCounts() {
        let body = Array("bplist00".utf8) + [0xD0]  // an empty dictionary at offset 8
        for (count, top, table) in [(UInt64.max, UInt64(0), UInt64(9)), (1, 0, UInt64.max), (1, UInt64.max, 9)] {
            var bytes = body + [8]
            bytes += [0, 0, 0, 0, 0, 0, 1, 1]
            for value in [count, top, table] { bytes += withUnsafeBytes(of: value.bigEndian, Array.init) }
            do {
                let document = try PropertyListFile.parse(Data(bytes), path: "lying.plist")
                Issue.record("read \(document.root) from a trailer claiming \(count) objects, top \(top), table at \(table)")
            } catch {
                #expect(error.description == "'lying.plist' is not a property list")
            }
        }
    }

    @Test func nestingDepthCountsOnlyOpenContainers() {
        #expect(PropertyListFile.xmlNestingDepth(Data("<plist><dict><key>a</key><array/><dict/></dict></plist>".utf8)) == 1)
        #expect(PropertyListFile.xmlNestingDepth(Data("<dict>\n<array >\n<dict\t>x</dict></array></dict>".utf8)) == 3)
        #expect(PropertyListFile.xmlNestingDepth(Data("<arrayish><dictionary>".utf8)) == 0)
    }

    @Test func nsDictionaryDescriptionOfEveryScalar() {
        let value: PropertyListValue = ["i": 42, "r": 2.5, "whole": 3.0, "b": false, "s": "two words",
                                        "when": .date(Date(timeIntervalSince1970: 0)), "list": [1, "x"]]
        #expect(NSDictionaryDescription.render(value) == """
            {
                b = false;
                i = 42;
                list =     (
                    1,
                    x
                );
                r = 2.5;
                s = "two words";
                when = "1970-01-01T00:00:00Z";
                whole = 3;
            }
            """)
        #expect("\(PropertyListValue.integer(7))" == "7" && "\(PropertyListValue.boolean(true))" == "true")
    }
}

/// Foundation's untyped plist objects and the typed value, for checking one against the other.
/// On Linux Foundation reads <true/> as a Swift Bool and numbers as NSNumber (objCType "d" for reals).
enum FoundationBridge {
    static func value(_ object: Any) -> PropertyListValue? {
        if type(of: object) == Bool.self, let boolean = object as? Bool { return .boolean(boolean) }
        if let number = object as? NSNumber {
            switch String(cString: number.objCType) {
            case "c", "B": return .boolean(number.boolValue)
            case "d", "f": return .real(number.doubleValue)
            default: return .integer(number.intValue)
            }
        }
        if let string = object as? String { return .string(string) }
        if let data = object as? Data { return .data(data) }
        if let date = object as? Date { return .date(date) }
        if let dictionary = object as? [String: Any] {
            var out: [String: PropertyListValue] = [:]
            for (key, element) in dictionary {
                guard let converted = value(element) else { return nil }
                out[key] = converted
            }
            return .dictionary(out)
        }
        if let array = object as? [Any] {
            let converted = array.compactMap(value)
            return converted.count == array.count ? .array(converted) : nil
        }
        return nil
    }

    static func object(_ value: PropertyListValue) -> Any {
        switch value {
        case .dictionary(let d): d.mapValues(object)
        case .array(let a): a.map(object)
        case .string(let s): s
        case .integer(let i): NSNumber(value: i)
        case .real(let r): NSNumber(value: r)
        case .boolean(let b): b
        case .date(let d): d
        case .data(let d): d
        }
    }
}
