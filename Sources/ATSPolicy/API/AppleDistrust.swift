#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts

/// A root Apple still ships but no longer trusts for certificates issued after a date.
public struct DateDistrustedRoot: Hashable, Sendable {
    /// Upper-case hex SHA-256 of the root certificate, without separators.
    public var sha256: String
    public var name: String
    /// The CA, as Apple's article names it ("Entrust").
    public var authority: String
    /// Certificates issued at or after this instant fail; earlier ones work until they expire.
    public var distrustedFrom: Date
    /// Where Apple says so.
    public var source: String

    public init(sha256: String, name: String, authority: String, distrustedFrom: Date, source: String) {
        self.sha256 = AppleDistrustList.normalized(sha256)
        self.name = name
        self.authority = authority
        self.distrustedFrom = distrustedFrom
        self.source = source
    }
}

/// Apple's date-based distrust, as data. `.apple` is Apple's list; tests inject their own
/// roots (the seam: a test root with a date) without touching Apple's.
public struct AppleDistrustList: Hashable, Sendable {
    /// Roots distrusted for certificates issued (earliest SCT, else notBefore) after a date.
    public package(set) var roots: [DateDistrustedRoot]
    /// Roots whose every child must have notBefore before `notBeforeLimit` (WoSign/StartCom).
    public package(set) var notBeforeConstrained: [String: String]
    public package(set) var notBeforeLimit: Date

    package init(roots: [DateDistrustedRoot], notBeforeConstrained: [String: String] = AppleDistrustList.woSignStartCom,
                notBeforeLimit: Date = AppleDistrustList.woSignStartComNotBeforeLimit) {
        self.roots = roots
        self.notBeforeConstrained = Dictionary(uniqueKeysWithValues: notBeforeConstrained.map { (AppleDistrustList.normalized($0.key), $0.value) })
        self.notBeforeLimit = notBeforeLimit
    }

    static func normalized(_ fingerprint: String) -> String {
        fingerprint.uppercased().filter { $0 != ":" && $0 != " " }
    }

    /// "TLS certificates issued after November 15, 2024 fail; those issued on or before work
    /// until they expire": the first instant that fails is 2024-11-16 00:00:00 UTC.
    static let article121668 = "Apple support article 121668 (Changes to certificate authorities and certificates)"

    /// Apple's list, from support article 121668 (fingerprints as the article gives them, each
    /// also in Apple's root store security_certificates-55349.0.11).
    public static let apple: AppleDistrustList = {
        let after20241115 = UTCDay.date(2024, 11, 16)
        let rows: [(String, String, String)] = [
            ("063E4AFAC491DFD332F3089B8542E94617D893D7FE944E10A7937EE29D9693C0", "Chambers of Commerce Root - 2008", "AC Camerfirma"),
            ("136335439334A7698016A0D324DE72284E079D7B5220BB8FBD747816EEBEBACA", "Global Chambersign Root - 2008", "AC Camerfirma"),
            ("DB3517D1F6732A2D5AB97C533EC70779EE3270A62FB4AC4238372460E6F01E88", "Entrust Root Certification Authority - G4", "Entrust"),
            ("73C176434F1BC6D5ADF45B0E76E727287C8DE57616C1E6E6141A2B2CBC7D8E4C", "Entrust Root Certification Authority", "Entrust"),
            ("6DC47172E01CBCB0BF62580D895FE2B8AC9AD4F873801E0C10B9C837D21EB177", "Entrust.net Certification Authority (2048)", "Entrust"),
            ("43DF5774B03E7FEF5FE40D931A7BEDF1BB2E6B42738C4E6D3841103D3AA7F339", "Entrust Root Certification Authority - G2", "Entrust"),
            ("02ED0EB28C14DA45165C566791700D6451D7FB56F0B2AB1D3B8EB070E56EDFF5", "Entrust Root Certification Authority - EC1", "Entrust"),
            ("0376AB1D54C5F9803CE4B2E201A0EE7EEF7B57B636E8A93C9B8D4860C96F5FA7", "AffirmTrust Commercial", "Entrust (AffirmTrust)"),
            ("0A81EC5A929777F145904AF38D5D509F66B5E2C58FCDB531058B0E17F3F0B41B", "AffirmTrust Networking", "Entrust (AffirmTrust)"),
            ("70A73F7F376B60074248904534B11482D5BF0E698ECC498DF52577EBF2E93B9A", "AffirmTrust Premium", "Entrust (AffirmTrust)"),
            ("BD71FDF6DA97E4CF62D1647ADD2581B07D79ADF8397EB4ECBA9C5E8488821423", "AffirmTrust Premium ECC", "Entrust (AffirmTrust)"),
        ]
        return AppleDistrustList(roots: rows.map {
            DateDistrustedRoot(sha256: $0.0, name: $0.1, authority: $0.2, distrustedFrom: after20241115, source: article121668)
        })
    }()

    /// 2016-12-01 00:00:00 UTC (SecPolicyServer.c: CFAbsoluteTime 502243200.0).
    public static let woSignStartComNotBeforeLimit = Date(timeIntervalSince1970: 1_480_550_400)

    /// WoSign and StartCom roots (SecPolicyServer.c, SecPVCCheckIssuerDateConstraints): any
    /// certificate below one with notBefore on or after 2016-12-01 00:00 UTC is refused.
    public static let woSignStartCom: [String: String] = [
        "D487A56F83B07482E85E963394C1ECC2C9E51D0903EE946B02C301581ED99E16": "WoSign CA 1 G2",
        "4B22D5A6AEC99F3CDB79AA5EC06838479CD5ECBA7164F7F22DC1D65F63D85708": "WoSign CA 1 (new)",
        "D6F034BD94AA233F0297ECA4245B283973E447AA590F310C77F48FDF83112254": "WoSign CA 2 (new)",
        "8B45DA1C06F791EB0CABF26BE588F5FB23165C2E614BF885562D0DCE50B29B02": "WoSign ECC",
        "C766A9BEF2D4071C863A31AA4920E813B2D198608CB7B7CFE21143B836DF09EA": "StartCom Certification Authority",
        "E17890EE09A3FBF4F48B9C414A17D637B7A50647E9BC752322727FCC1742A911": "StartCom Certification Authority (SHA-2)",
        "C7BA6567DE93A798AE1FAA791E712D378FAE1F93C4397FEA441BB7CBE6FD5995": "StartCom Certification Authority G2",
    ]

    /// Apple's list with extra date-distrusted roots. TEST SEAM, not public: an embedder judges
    /// by Apple's list (`.apple`) only.
    package func adding(_ root: DateDistrustedRoot) -> AppleDistrustList {
        var copy = self
        copy.roots.append(root)
        return copy
    }
}

/// "2024-11-16T00:00:00Z".
func isoText(_ date: Date) -> String {
    let seconds = Int(date.timeIntervalSince1970.rounded(.down))
    let day = dayString(date)
    let within = ((seconds % 86_400) + 86_400) % 86_400
    func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
    return "\(day)T\(two(within / 3600)):\(two(within / 60 % 60)):\(two(within % 60))Z"
}
