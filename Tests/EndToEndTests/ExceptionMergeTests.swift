import ATSTestServers
import Foundation
import Testing
import TestSupport

/// `--merge Info.plist`: every other key kept value for value (XML and binary), the existing
/// entry widened as far as needed and never narrowed, and bad input never overwritten.
@Suite struct ExceptionMergeTests {
    static let infoPlist = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">
    <dict>
        <key>CFBundleIdentifier</key><string>com.example.app</string>
        <key>CFBundleVersion</key><string>42</string>
        <key>LSRequiresIPhoneOS</key><true/>
        <key>UIDeviceFamily</key><array><integer>1</integer><integer>2</integer></array>
        <key>Ratio</key><real>1.5</real>
        <key>Built</key><date>2024-05-01T12:00:00Z</date>
        <key>Blob</key><data>AAECAw==</data>
        <key>Nested</key><dict><key>Flag</key><false/><key>Count</key><integer>-7</integer><key>Name</key><string>a &amp; b</string></dict>
        <key>NSAppTransportSecurity</key>
        <dict>
            <key>NSAllowsArbitraryLoadsInWebContent</key><true/>
            <key>NSExceptionDomains</key>
            <dict>
                <key>localhost</key>
                <dict><key>NSExceptionRequiresForwardSecrecy</key><false/></dict>
                <key>other.example</key>
                <dict><key>NSExceptionMinimumTLSVersion</key><string>TLSv1.0</string></dict>
            </dict>
        </dict>
    </dict>
    </plist>
    """

    /// localhost needs TLSv1.1: the entry gains it and keeps its (wider) PFS key; other.example is untouched.
    static let expectedATS = #"{"NSAllowsArbitraryLoadsInWebContent": true, "NSExceptionDomains": {"localhost": {"NSExceptionMinimumTLSVersion": "TLSv1.1", "NSExceptionRequiresForwardSecrecy": false}, "other.example": {"NSExceptionMinimumTLSVersion": "TLSv1.0"}}}"#

    static var binaryInfoPlist: Data {
        get throws {
            let object = try PropertyListSerialization.propertyList(from: Data(infoPlist.utf8), format: nil)
            return try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
        }
    }

    /// Merges into `input` against a TLS 1.1-only server; returns the run and the bytes written.
    func merge(_ input: Data, _ extra: [String] = [], outputSameFile: Bool = false) async throws -> (BinaryRunner.Result, Data) {
        let directory = try TemporaryDirectory(prefix: "atsprobe-merge")
        let path = try directory.write("Info.plist", input)
        let fixture = try ExceptionFixture()
        let result = try await fixture.withServer(configure: { $0.minVersion = .tls11; $0.maxVersion = .tls11 }) { port in
            try await fixture.diagnose(port: port, ["--merge", path] + extra + (outputSameFile ? ["--output", path] : []))
        }
        #expect(!result.timedOut)
        let written = outputSameFile ? try Data(contentsOf: URL(fileURLWithPath: path)) : Data(result.stdout.utf8)
        return (result, written)
    }

    func expectMerged(_ written: Data, original: Data, stderr: String) throws {
        #expect(try PythonPlist.json(written, drop: "NSAppTransportSecurity") == PythonPlist.json(original, drop: "NSAppTransportSecurity"))
        #expect(try PythonPlist.json(written, only: "NSAppTransportSecurity") == Self.expectedATS, "stderr: \(stderr)")
        #expect(stderr.contains("widened the entry for localhost: NSExceptionMinimumTLSVersion = TLSv1.1"), "\(stderr)")
        #expect(stderr.contains("the entry for localhost is wider than this probe needs and was kept; it could be tightened: NSExceptionRequiresForwardSecrecy"), "\(stderr)")
    }

    @Test func xmlKeepsEveryOtherKeyAndWidensOnlyAsNeeded() async throws {
        let original = Data(Self.infoPlist.utf8)
        let (result, written) = try await merge(original)
        #expect(result.status == 1)
        #expect(written.starts(with: Data("<?xml".utf8)))
        try expectMerged(written, original: original, stderr: result.stderr)
    }

    @Test func binaryStaysBinaryUnlessAskedOtherwise() async throws {
        let original = try Self.binaryInfoPlist
        // Binary goes to stdout as bytes; read it back through --output to keep it intact.
        let (result, written) = try await merge(original, outputSameFile: true)
        #expect(written.starts(with: Data("bplist00".utf8)))
        try expectMerged(written, original: original, stderr: result.stderr)
        let (asXML, xml) = try await merge(original, ["--merge-format", "xml"])
        #expect(xml.starts(with: Data("<?xml".utf8)))
        try expectMerged(xml, original: original, stderr: asXML.stderr)
    }

    @Test(arguments: [false, true])
    func notAPropertyListIsExit64AndUntouched(outputSameFile: Bool) async throws {
        let directory = try TemporaryDirectory(prefix: "atsprobe-merge")
        let junk = Data("this is { not a property list\n".utf8)
        let path = try directory.write("Info.plist", junk)
        let result = try await BinaryRunner.run(["diagnose", "--merge", path] + (outputSameFile ? ["--output", path] : []) + ["https://localhost:9/"],
                                          timeout: 60)
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("is not a property list"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == junk)
    }

    /// Issue 25: merging into an XML file keeps its key order, indentation and comments, so the
    /// diff shows only what was added (no line removed or changed).
    @Test func mergeIntoXMLKeepsTheFilesOrderAndFormatting() async throws {
        let original = """
        \(xmlPlistHead)
        <dict>
        \t<key>UIDeviceFamily</key>
        \t<array>
        \t\t<integer>1</integer>
        \t</array>
        \t<!-- ATS: reviewed 2026-01 -->
        \t<key>NSAppTransportSecurity</key>
        \t<dict>
        \t\t<key>NSExceptionDomains</key>
        \t\t<dict>
        \t\t\t<key>zeta.example</key>
        \t\t\t<dict>
        \t\t\t\t<key>NSIncludesSubdomains</key>
        \t\t\t\t<true/>
        \t\t\t\t<key>NSExceptionMinimumTLSVersion</key>
        \t\t\t\t<string>TLSv1.2</string>
        \t\t\t</dict>
        \t\t</dict>
        \t</dict>
        \t<key>CFBundleIdentifier</key>
        \t<string>com.example.app</string>
        </dict>
        </plist>

        """
        let (result, written) = try await merge(Data(original.utf8))
        #expect(result.status == 1, "\(result.stderr)")
        let text = String(decoding: written, as: UTF8.self)
        let directory = try TemporaryDirectory(prefix: "atsprobe-merge-diff")
        let before = try directory.write("before.plist", original)
        let after = try directory.write("after.plist", text)
        let diff = try await ChildProcess.run("/usr/bin/diff", [before, after], timeout: 30)
        let changes = diff.stdout.split(separator: "\n").filter { $0.hasPrefix("<") || $0.hasPrefix(">") }
        #expect(!changes.isEmpty)
        #expect(changes.allSatisfy { $0.hasPrefix(">") }, "only additions:\n\(diff.stdout)")
        // The new entry sits in the file's own indentation, after the existing one.
        #expect(text.contains("\t\t\t</dict>\n\t\t\t<key>localhost</key>\n\t\t\t<dict>\n\t\t\t\t<key>NSExceptionMinimumTLSVersion</key>\n\t\t\t\t<string>TLSv1.1</string>\n\t\t\t</dict>\n\t\t</dict>"), "\(text)")
        let reread = try PropertyListSerialization.propertyList(from: written, format: nil) as? [String: Any]
        let domains = (reread?["NSAppTransportSecurity"] as? [String: Any])?["NSExceptionDomains"] as? [String: Any]
        #expect(Set(domains?.keys.map { $0 } ?? []) == ["zeta.example", "localhost"])
    }
}
