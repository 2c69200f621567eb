import ATSPolicy
import ATSTestServers
import ATSTrust
import Foundation
import Testing
import TLSFacts

/// The public trust API (`ChainVerifier`, `CertificateChain`, `IssuerFetching`) as an embedder
/// sees it: a plain `import ATSTrust` (no `@testable`), and this test target links no ATSProbe,
/// so no Prober, thread or runtime can be involved.
@Suite("Public trust API")
struct PublicTrustAPITests {
    /// Midnight UTC of the day (ATSTestServers' `utcMidnight`: TextSupport's CivilCalendar).
    static func utc(_ year: Int, _ month: Int, _ day: Int) -> Date { utcMidnight(year, month, day) }

    static let issued = utc(2025, 3, 1)
    static let judged = utc(2025, 3, 10)
    static let logs = [try! TestCTLog(name: "Google 'Argon' test log", operator: "Google"),
                       try! TestCTLog(name: "Cloudflare 'Nimbus' test log", operator: "Cloudflare"),
                       try! TestCTLog(name: "DigiCert 'Wyvern' test log", operator: "DigiCert")]
    static let testList = CTLogList(source: "test logs", logs: logs.map {
        CTLog(logID: $0.logIDBase64, name: $0.name, operatorName: $0.operatorName, state: .usable,
              stateSince: utc(2024, 11, 26), api: .rfc6962)
    }, keys: TestCTLog.keys(logs))

    /// A 90-day leaf with three SCTs from the test logs.
    static func spec(scts: Bool = true, caIssuers: [String] = []) -> CertificateSpec {
        CertificateSpec(notBefore: issued, notAfter: issued.addingTimeInterval(90 * 86_400 - 1),
                        embeddedSCTs: scts ? logs.map { TestSCT(log: $0, timestamp: issued) } : [], caIssuersURLs: caIssuers)
    }

    /// A table of caIssuers answers, counting the asks.
    final class Table: IssuerFetching, @unchecked Sendable {
        let answers: [String: IssuerFetchResult]
        private let lock = NSLock()
        private var asked: [String] = []
        init(_ answers: [String: IssuerFetchResult]) { self.answers = answers }
        var asks: [String] { lock.withLock { asked } }
        func certificates(from url: String, target: String) async -> IssuerFetchResult {
            lock.withLock { asked.append("\(url) for \(target)") }
            return answers[url] ?? .failure("HTTP 404")
        }
    }

    @Test("A CT-required (system) root: met with the logs that signed the SCTs; Apple's list, the default, does not know them")
    func appleShapedCTUsesTheListGiven() async throws {
        let pki = try TestPKI()
        let root = try pki.writeRootPEM()
        let leaf = try pki.issue(Self.spec())
        let chain = try CertificateChain(pem: leaf.fullChainPEM)
        let system = AnchorConfiguration(useSystemTrustStore: false, additionalSystemAnchorsFile: root)

        let withTestLogs = try ChainVerifier(anchors: system, at: Self.judged, ruleSet: .current, ctLogs: Self.testList)
        let met = await withTestLogs.judge(chain, name: "localhost")
        #expect(met.trusted, "\(met.failures.map(\.reason))")
        #expect(met.anchorKind == .systemRoot)

        let byDefault = try ChainVerifier(anchors: system, at: Self.judged, ruleSet: .current)  // Apple's log list
        #expect(byDefault.ctLogs.source == CTLogList.apple.source)
        let unknownLogs = await byDefault.judge(chain, name: "localhost")
        #expect(!unknownLogs.trusted)
        #expect(unknownLogs.failures.map(\.rule) == [CertificateRuleID.certificateTransparency.rawValue])
    }

    @Test("A user-installed root needs no SCT; the instant decides expiry; the name must match")
    func userRootInstantAndName() async throws {
        let pki = try TestPKI()
        let root = try pki.writeRootPEM()
        let leaf = try pki.issue(Self.spec(scts: false))
        let user = AnchorConfiguration(caFile: root, useSystemTrustStore: false)
        let chain = try CertificateChain(pem: leaf.fullChainPEM)

        let now = await (try ChainVerifier(anchors: user, at: Self.judged, ruleSet: .current)).judge(chain, name: "localhost")
        #expect(now.trusted, "\(now.failures.map(\.reason))")
        #expect(now.anchorKind == .userTrustedRoot)
        let later = await (try ChainVerifier(anchors: user, at: Self.utc(2026, 1, 1), ruleSet: .current)).judge(chain, name: "localhost")
        #expect(!later.trusted)
        #expect(later.failures.contains { $0.rule.hasPrefix("trust.") && $0.reason.localizedCaseInsensitiveContains("expired") },
                "\(later.failures.map(\.reason))")
        let otherName = await (try ChainVerifier(anchors: user, at: Self.judged, ruleSet: .current)).judge(chain, name: "other.example")
        #expect(!otherName.trusted)
    }

    @Test("PEM, DER values and bytes read the same chain; bad input is an error saying why")
    func chainForms() throws {
        let pki = try TestPKI()
        let leaf = try pki.issue(Self.spec(scts: false))
        #expect(try CertificateChain(pem: leaf.fullChainPEM).count == 1)
        #expect(try CertificateChain(der: [leaf.certificateDER]).count == 1)
        #expect(try CertificateChain(bytes: leaf.certificateDER).count == 1)
        #expect(throws: CertificateChainError.self) { try CertificateChain(der: []) }
        #expect(throws: CertificateChainError.self) { try CertificateChain(der: [[0x30, 0x01, 0x00]]) }
        #expect(throws: CertificateChainError.self) { try CertificateChain(pem: "not a certificate") }
        #expect(throws: TrustSetupError.self) { try ChainVerifier(anchors: AnchorConfiguration(caFile: "/nonexistent/roots.pem"), at: Self.judged, ruleSet: .current) }
    }

    @Test("A left-out intermediate comes from the caIssuers source given, asked for the target; none given, none fetched")
    func issuersBehindTheProtocol() async throws {
        let pki = try TestPKI(withIntermediate: true)
        let root = try pki.writeRootPEM()
        let url = "http://ca.example/int.cer"
        let leaf = try pki.issue(Self.spec(scts: false, caIssuers: [url])).leafOnly
        let chain = try CertificateChain(pem: leaf.certificatePEM)
        let user = AnchorConfiguration(caFile: root, useSystemTrustStore: false)

        let table = Table([url: .certificates([pki.intermediate!.certificateDER])])
        let fetched = await (try ChainVerifier(anchors: user, at: Self.judged, ruleSet: .current, issuers: table)).judge(chain, name: "localhost")
        #expect(fetched.trusted, "\(fetched.failures.map(\.reason))")
        #expect(table.asks == ["\(url) for localhost"])
        #expect(fetched.fetchedIssuers?.first?.url == url)

        let without = await (try ChainVerifier(anchors: user, at: Self.judged, ruleSet: .current)).judge(chain, name: "localhost")
        #expect(!without.trusted)
    }
}
