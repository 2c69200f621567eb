import Foundation
import Testing
@testable import ATSPolicy

@Suite("CT log table (Apple's log list)")
struct CertificateLogListTests {
    @Test func everyRowIsAThirtyTwoByteIDAndUnique() {
        #expect(CTLogList.appleRows.count == 166)
        #expect(CTLogList.apple.logsByID.count == CTLogList.appleRows.count)
        for log in CTLogList.appleRows {
            #expect(Data(base64Encoded: log.logID)?.count == 32, "\(log.name)")
            #expect(!log.name.isEmpty && !log.operatorName.isEmpty)
        }
        #expect(CTLogList.apple.source.contains("version 511"))
    }

    @Test func knownLogsLookUp() throws {
        let argon = try #require(CTLogList.apple["DleUvPOuqT4zGyyZB7P3kN+bwj1xMiXdIaklrGHFTiE="])
        #expect(argon.name == "Google 'Argon 2026H1' log")
        #expect(argon.operatorName == "Google")
        #expect(argon.state == .usable)
        #expect(argon.api == .rfc6962)
        let gouda = try #require(CTLogList.apple["GoudaUpXmMiZoMqIvfSPwLRWYMzDYA0fcfRp/8fRrKM="])
        #expect(gouda.operatorName == "IPng GmbH")
        #expect(gouda.api == .staticCTAPI)
        let operators = Set(CTLogList.apple.logs.filter { $0.state == .usable }.map(\.operatorName))
        #expect(operators == ["Cloudflare", "DigiCert", "Geomys", "Google", "IPng GmbH", "Let's Encrypt", "Sectigo", "TrustAsia"])
    }
}
