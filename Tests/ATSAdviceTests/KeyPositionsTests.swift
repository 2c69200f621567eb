@testable import ATSAdvice
import Foundation
import PropertyList
import PropertyListPositions
import Testing

/// Key positions read with libxml2 (PropertyListPositions): exact lines and columns, the
/// linter's key paths as they are, and every lint case's finding located in its file.
@Suite struct KeyPositionsTests {
    static func document(_ rootContent: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>\(rootContent)</dict>
        </plist>

        """
    }

    @Test func keysArrayElementsAndNestedDictionariesHaveTheirLineAndColumn() throws {
        let text = """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0">
        <dict>
        \t<key>CFBundleName</key>
        \t<string>Caf\u{E9} \u{1F600}</string>
        \t<key>NSAppTransportSecurity</key>
        \t<dict>
        \t\t<key>NSExceptionDomains</key>
        \t\t<dict>
        \t\t\t<key>api.example.com</key>
        \t\t\t<dict><key>NSIncludesSubdomains</key><true/></dict>
        \t\t</dict>
        \t\t<key>NSPinnedDomains</key><dict><key>pin.example</key><dict><key>NSPinnedLeafIdentities</key><array>
        \t\t\t<dict><key>SPKI-SHA256-BASE64</key><string>x</string></dict>
        \t\t\t<dict/></array></dict></dict>
        \t</dict>
        \t<key>\u{E9}t\u{E9} &amp; more</key><key
        >split</key><string>v</string>
        </dict>
        </plist>
        """
        let positions = try #require(KeyPositions.read(xml: Array(text.utf8)))
        let ats = "NSAppTransportSecurity"
        let expected: [(String, Int, Int)] = [
            ("CFBundleName", 4, 2),
            (ats, 6, 2),
            ("\(ats).NSExceptionDomains", 8, 3),
            ("\(ats).NSExceptionDomains.api.example.com", 10, 4),
            ("\(ats).NSExceptionDomains.api.example.com.NSIncludesSubdomains", 11, 10),
            ("\(ats).NSPinnedDomains", 13, 3),
            ("\(ats).NSPinnedDomains.pin.example.NSPinnedLeafIdentities", 13, 63),
            ("\(ats).NSPinnedDomains.pin.example.NSPinnedLeafIdentities[0]", 14, 4),
            ("\(ats).NSPinnedDomains.pin.example.NSPinnedLeafIdentities[0].SPKI-SHA256-BASE64", 14, 10),
            ("\(ats).NSPinnedDomains.pin.example.NSPinnedLeafIdentities[1]", 15, 4),
            // An entity in a key is read as the decoder reads it; columns count characters, not bytes.
            ("\u{E9}t\u{E9} & more", 17, 2),
            // A start tag broken over two lines starts on the first.
            ("split", 17, 27),
        ]
        for (path, line, column) in expected {
            #expect(positions.position(of: path) == SourcePosition(line: line, column: column), "\(path)")
            #expect(positions.contains(path), "\(path)")
        }
        #expect(positions.root == SourcePosition(line: 3, column: 1))
        // A key the file lacks points at the nearest enclosing key; nothing enclosing: the root.
        #expect(positions.position(of: "\(ats).NSExceptionDomains.api.example.com.NSExceptionMinimumTLSVersion")
                == SourcePosition(line: 10, column: 4))
        #expect(positions.position(of: "NoSuchKey") == SourcePosition(line: 3, column: 1))
    }

    /// (A C0 control such as ESC is not XML 1.0: libxml2 refuses such a file, and its findings
    /// are located at the file. A bidi override is XML, and is escaped in key paths.)
    @Test func keysFromTheFileAreEscapedAsTheLinterEscapesThem() throws {
        let text = Self.document("<key>NSAppTransportSecurity</key><dict><key>NSExceptionDomains</key><dict><key>evil&#x202E;moc.example</key><dict/></dict></dict>")
        let positions = try #require(KeyPositions.read(xml: Array(text.utf8)))
        let document = try PropertyListFile.parse(Data(text.utf8), path: "x.plist")
        let finding = try #require(ATSLinter.lint(document).first { $0.keyPath.contains("evil") })
        #expect(finding.keyPath.contains("evil\\u{202E}moc.example") && !finding.keyPath.contains("\u{202E}"), "escaped: \(finding.keyPath)")
        #expect(positions.contains(finding.keyPath), "\(finding.keyPath) not among \(positions.byPath.keys.sorted())")
    }

    @Test func binaryAndBrokenInputHaveNoPositions() throws {
        let binary = try PropertyListFile.write(["a": .string("b")], format: .binary)
        #expect(KeyPositions.read(xml: [UInt8](binary)) == nil)
        #expect(KeyPositions.read(xml: Array("<plist><dict><key>a</key>".utf8)) == nil)
        #expect(KeyPositions.read(xml: []) == nil)
        // No network and no external entity: a DOCTYPE naming one is not fetched or expanded.
        let external = """
        <?xml version="1.0"?><!DOCTYPE plist [<!ENTITY x SYSTEM "http://192.0.2.1/x">]><plist><dict><key>k</key><string>&x;</string></dict></plist>
        """
        let positions = KeyPositions.read(xml: Array(external.utf8))
        #expect(positions == nil || positions?.contains("k") == true)
    }

    /// Every finding of every lint case (LintCases.swift) is located in its file: at its own
    /// key, or (for a key the finding says is missing) at the key that should hold it.
    @Test func everyLintFindingIsLocatedInItsFile() throws {
        // Rules whose finding names a key the file does not have (the dictionary that lacks it).
        let missingKeyRules: Set<String> = ["no-ats-dictionary"]
        var located = 0
        for lintCase in LintCase.all where lintCase.triggers {
            let text = Self.document(lintCase.plist)
            let document = try PropertyListFile.parse(Data(text.utf8), path: "case.plist")
            let positions = try #require(KeyPositions.read(xml: Array(text.utf8)), "\(lintCase.plist)")
            for finding in ATSLinter.lint(document) {
                #expect(positions.position(of: finding.keyPath) != nil, "\(finding)")
                if !missingKeyRules.contains(finding.rule) {
                    #expect(positions.contains(finding.keyPath), "\(finding.rule) \(finding.keyPath) is not a key of \(lintCase.plist)")
                }
                located += 1
            }
        }
        #expect(located > 50)
    }
}
