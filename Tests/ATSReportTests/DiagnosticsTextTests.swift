import ATSCommandOutputs
import ATSPolicy
import ATSReport
import Foundation
import PropertyList
import Testing
import TLSFacts

/// diagnose's text from its documents (issue 39 item 5): the live run writes it piece by piece
/// (`DiagnosticsText.Stream`: the header as a target starts, each test as it finishes, the footer)
/// and the registry renders it whole; the two are one renderer's output, byte for byte.
@Suite struct DiagnosticsTextTests {
    static func document(_ url: String, failingFrom: Int) throws -> DiagnosticsJSON {
        let target = try Target(parsing: url)
        let tests = NSCurlMatrix.tests(host: target.host).enumerated().map { index, test in
            DiagnosticsJSON.TestJSON(section: test.section, title: test.title, configuration: test.configuration,
                                     verdict: index < failingFrom ? Verdict(passed: true) : Verdict(passed: false), hops: [])
        }
        let exception = DomainException(requiresForwardSecrecy: false)
        return DiagnosticsJSON(target: TargetReport(target), ruleSet: RuleSet.current.id, handshakes: 3, wallMilliseconds: 12.3,
                               reachability: "answered", defaultPasses: failingFrom > 0, tests: tests,
                               suggestion: .init(.exception(domain: target.host, exception, rationale: []), ruleSet: .current),
                               run: RunInfo(toolVersion: "t", openSSLVersion: "o", ruleSet: RuleSet.current.id, trustStore: nil,
                                            ctLogList: nil, startedAt: Date(timeIntervalSince1970: 0)),
                               finishedAt: Date(timeIntervalSince1970: 0), missingIntermediate: nil)
    }

    /// What a live run writes for these targets (diagnose's calls to `DiagnosticsText.Live`): a
    /// blank line between targets, then each target's header, its tests one at a time, its footer.
    static func streamed(_ documents: [DiagnosticsJSON], verbose: Bool) async -> String {
        let live = DiagnosticsText.Live(DiagnosticsText.Stream(verbose: verbose, palette: Palette(enabled: false)))
        var out = ""
        for (position, document) in documents.enumerated() {
            if position > 0 { out += "\n" }
            out += await live.header(document.target)
            for test in document.tests { out += await live.test(test) }
            out += await live.footer(document)
        }
        return out
    }

    @Test(arguments: [false, true]) func theLiveTextIsTheRegistrysText(verbose: Bool) async throws {
        let documents = [try Self.document("https://one.test/", failingFrom: 0), try Self.document("https://two.test:8443/", failingFrom: 6)]
        let whole = try DiagnosticsOutput(documents, includeSubdomains: false).rendered(.text, options: RenderOptions(verbose: verbose))
        let live = await Self.streamed(documents, verbose: verbose)
        #expect(live == whole.text)
        // It is nscurl's text: both targets, their sections and the summary's exception.
        #expect(live.components(separatedBy: "Starting ATS Diagnostics").count == 3)
        #expect(live.contains("Configuring TLS exceptions for two.test\n\n---\nTLSv1.3\n"), "\(live)")
        #expect(live.contains("Exception  : the minimal NSExceptionDomains entry for one.test:\n"), "\(live)")
        #expect(live.contains("ATS Dictionary:\n") == verbose)
    }

    /// --merge through the registry: the app's XML file edited in place (its comment kept), or
    /// written whole in the encoding asked for.
    @Test func theMergeIsThePlistRenderersOutput() throws {
        let xml = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<!-- kept -->
        \t<key>CFBundleIdentifier</key>
        \t<string>com.example.app</string>
        </dict>
        </plist>

        """
        let bytes = Array(xml.utf8)
        let plist = try PropertyListFile.parse(Data(bytes), path: "Info.plist")
        let documents = [try Self.document("https://one.test/", failingFrom: 0)]
        for format: PropertyListFile.Format? in [nil, .binary] {
            let merge = PlistMergeInput(document: plist, bytes: bytes, format: format, ruleSet: .current)
            let rendered = try DiagnosticsOutput(documents, includeSubdomains: false, merge: merge).rendered(.plist)
            let written = try #require(rendered.bytes)
            let merged = try PropertyListFile.parse(Data(written), path: "merged")
            #expect(merged.format == (format ?? .xml))
            let domains = merged.root["NSAppTransportSecurity"]?.dictionaryValue?["NSExceptionDomains"]?.dictionaryValue
            #expect(domains?["one.test"]?.dictionaryValue?["NSExceptionRequiresForwardSecrecy"] == .boolean(false))
            #expect(String(decoding: written, as: UTF8.self).contains("<!-- kept -->") == (format == nil))
        }
    }

    /// A file that cannot take the entries is refused (exit 64) after the targets no entry helps
    /// are named on standard error, as the plist without --merge names them.
    @Test func aRefusedMergeStillNamesTheUnhelpableTargets() throws {
        var impossible = try Self.document("https://lost.test/", failingFrom: 0)
        impossible = DiagnosticsJSON(target: impossible.target, ruleSet: impossible.ruleSet, handshakes: 1, wallMilliseconds: 1,
                                     reachability: "answered", defaultPasses: false, tests: impossible.tests,
                                     suggestion: .init(.impossible(reason: "certificate not trusted"), ruleSet: .current),
                                     run: try #require(impossible.run), finishedAt: Date(timeIntervalSince1970: 0), missingIntermediate: nil)
        let plist = try PropertyListFile.parse(Data(try PropertyListFile.write(["NSAppTransportSecurity": .string("no")], format: .xml)),
                                               path: "Bad.plist")
        let merge = PlistMergeInput(document: plist, bytes: nil, format: nil, ruleSet: .current)
        let failure = #expect(throws: RenderingFailed.self) {
            try DiagnosticsOutput([impossible], includeSubdomains: false, merge: merge).rendered(.plist)
        }
        #expect(failure?.standardError == "# lost.test: no exception added for https://lost.test/: certificate not trusted\n")
        let message = failure.map { "\($0.error)" } ?? ""
        #expect(message.contains("NSAppTransportSecurity is not a dictionary"), "\(message)")
    }
}
