import Foundation
import Testing
import ATSAdvice
import ATSPolicy
import ATSPolicyFixtures

@Suite("PropertyListFile")
struct LintPropertyListFileTests {
    func expectError(_ path: String, maximumSize: Int = PropertyListFile.defaultMaximumSize, _ description: String) {
        do {
            _ = try PropertyListFile.read(path: path, maximumSize: maximumSize)
            Issue.record("reading \(path) should fail with: \(description)")
        } catch {
            #expect(error.description == description)
        }
    }

    @Test func missingFile() throws {
        let directory = try LintTemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("absent.plist")
        expectError(path, "cannot read '\(path)': no such file")
    }

    @Test func directoryIsNotAFile() throws {
        let directory = try LintTemporaryDirectory()
        defer { directory.remove() }
        expectError(directory.url.path, "cannot read '\(directory.url.path)': is a directory")
    }

    @Test func notAPropertyList() throws {
        let directory = try LintTemporaryDirectory()
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
        let directory = try LintTemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("array.plist")
        let xml = infoPlistXML("").replacingOccurrences(of: "<dict></dict>", with: "<array><string>x</string></array>")
        try Data(xml.utf8).write(to: URL(fileURLWithPath: path))
        expectError(path, "'\(path)': top level is not a dictionary (found an array)")
    }

    @Test func sizeIsBounded() throws {
        let directory = try LintTemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("Info.plist")
        try Data(infoPlistXML(ats("")).utf8).write(to: URL(fileURLWithPath: path))
        expectError(path, maximumSize: 64, "cannot read '\(path)': larger than 64 bytes")
        #expect(try PropertyListFile.read(path: path).atsDictionary?.isEmpty == true)
    }

    @Test func locatesTheATSDictionary() throws {
        let withATS = PropertyListDocument(root: ["CFBundleName": "App", "NSAppTransportSecurity": ["NSAllowsArbitraryLoads": true]])
        #expect(!withATS.isBareATSDictionary)
        #expect(withATS.atsDictionary?["NSAllowsArbitraryLoads"] as? Bool == true)

        let without = PropertyListDocument(root: ["CFBundleName": "App"])
        #expect(!without.isBareATSDictionary)
        #expect(without.atsDictionary == nil)

        let bare = PropertyListDocument(root: ["NSAllowsLocalNetworking": true])
        #expect(bare.isBareATSDictionary)
        #expect(bare.atsDictionary?.keys.sorted() == ["NSAllowsLocalNetworking"])

        // A misspelled key is enough to recognise a fragment; a CFBundle key marks a real Info.plist.
        #expect(PropertyListDocument(root: ["NSAllowArbitraryLoads": true]).isBareATSDictionary)
        let infoPlist = PropertyListDocument(root: ["CFBundleIdentifier": "com.example.app", "NSAllowsArbitraryLoads": true])
        #expect(!infoPlist.isBareATSDictionary)
        #expect(infoPlist.atsDictionary == nil)
    }

    @Test(arguments: PropertyListFile.Format.allCases)
    func writeThenReadBack(format: PropertyListFile.Format) throws {
        let root: [String: Any] = ["NSAppTransportSecurity": [
            "NSAllowsArbitraryLoads": false,
            "NSExceptionDomains": ["example.com": ["NSExceptionMinimumTLSVersion": "TLSv1.1", "NSIncludesSubdomains": true]],
        ]]
        let directory = try LintTemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("out.plist")
        try PropertyListFile.write(root, format: format).write(to: URL(fileURLWithPath: path))

        let document = try PropertyListFile.read(path: path)
        #expect(document.format == format)
        let ats = try #require(document.atsDictionary)
        #expect(PropertyListValueKind(of: ats["NSAllowsArbitraryLoads"]!) == .boolean)
        let domains = try #require(ats["NSExceptionDomains"] as? [String: Any])
        let entry = try #require(domains["example.com"] as? [String: Any])
        #expect(entry["NSExceptionMinimumTLSVersion"] as? String == "TLSv1.1")
        #expect(PropertyListValueKind(of: entry["NSIncludesSubdomains"]!) == .boolean)
        #expect(ATSLinter.lint(document).map(\.rule) == ["redundant-default", "review-justification"])
    }

    @Test func writeRefusesNonPropertyListValues() {
        do {
            _ = try PropertyListFile.write(["NSAppTransportSecurity": ["link": URL(fileURLWithPath: "/")]], format: .xml)
            Issue.record("a URL is not a property-list value")
        } catch {
            #expect(error.description == "cannot write property list: 'NSAppTransportSecurity.link' is not a property-list value")
        }
    }
}
