import Foundation
import Testing
import TestSupport
import PropertyList

@Suite("PropertyListFile")
struct PropertyListFileTests {
    func expectError(_ path: String, maximumSize: Int = PropertyListFile.defaultMaximumSize, _ description: String) {
        do {
            _ = try PropertyListFile.read(path: path, maximumSize: maximumSize)
            Issue.record("reading \(path) should fail with: \(description)")
        } catch {
            #expect(error.description == description)
        }
    }

    @Test func missingFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("absent.plist")
        expectError(path, "cannot read '\(path)': no such file")
    }

    @Test func directoryIsNotAFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        expectError(directory.url.path, "cannot read '\(directory.url.path)': is a directory")
    }

    @Test func notAPropertyList() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let text = directory.path("notes.txt")
        try Data("this is not a property list, just words\n".utf8).write(to: URL(fileURLWithPath: text))
        expectError(text, "'\(text)' is not a property list")
        let empty = directory.path("empty.plist")
        try Data().write(to: URL(fileURLWithPath: empty))
        expectError(empty, "'\(empty)' is not a property list")
        let broken = directory.path("broken.plist")
        try Data(infoPlistXML("<key>a</key><true/>").dropLast(10).utf8).write(to: URL(fileURLWithPath: broken))
        expectError(broken, "'\(broken)' is not a property list")
    }

    @Test func topLevelArray() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("array.plist")
        let xml = infoPlistXML("").replacingOccurrences(of: "<dict></dict>", with: "<array><string>x</string></array>")
        try Data(xml.utf8).write(to: URL(fileURLWithPath: path))
        expectError(path, "'\(path)': top level is not a dictionary (found an array)")
    }

    @Test func sizeIsBounded() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("Info.plist")
        try Data(infoPlistXML("<key>NSAppTransportSecurity</key><dict></dict>").utf8).write(to: URL(fileURLWithPath: path))
        expectError(path, maximumSize: 64, "cannot read '\(path)': larger than 64 bytes")
        #expect(try PropertyListFile.read(path: path).root == ["NSAppTransportSecurity": [:]])
    }

    @Test(arguments: PropertyListFile.Format.allCases)
    func writeThenReadBack(format: PropertyListFile.Format) throws {
        let root: [String: PropertyListValue] = ["NSAppTransportSecurity": [
            "NSAllowsArbitraryLoads": false,
            "NSExceptionDomains": ["example.com": ["NSExceptionMinimumTLSVersion": "TLSv1.1", "NSIncludesSubdomains": true]],
        ]]
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("out.plist")
        try PropertyListFile.write(root, format: format).write(to: URL(fileURLWithPath: path))

        let document = try PropertyListFile.read(path: path)
        #expect(document.format == format)
        #expect(document.path == path)
        #expect(document.root == root)
        #expect(document.root["NSAppTransportSecurity"]?["NSAllowsArbitraryLoads"]?.kind == .boolean)
    }

    @Test func xmlRefusesControlCharactersNamingTheKey() {
        do {
            _ = try PropertyListFile.write(["NSAppTransportSecurity": ["link": "a\u{1B}b"]], format: .xml)
            Issue.record("ESC cannot be written in XML 1.0")
        } catch {
            #expect(error.description == "cannot write property list: 'NSAppTransportSecurity.link' holds a control character XML cannot carry; write it as a binary property list")
        }
    }
}
