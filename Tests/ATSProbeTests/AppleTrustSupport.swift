import Foundation
import ATSPolicy
import ATSProbe
import ATSTestServers
import TLSFacts

/// A test PKI whose root is either a system root (the ProbeOptions.additionalSystemAnchorsFile
/// test seam: public-root rules apply) or a user root (--ca-file: exempt from 398 days and CT),
/// with the clock fixed at `date`. Every observation comes from a real loopback handshake.
struct AppleTrustFixture {
    let pki: TestPKI
    let rootPath: String
    let prober: Prober
    let date: Date

    init(anchor: AnchorSource, at date: Date, withIntermediate: Bool = false,
         intermediateKey: TestKey = .ec(curve: .p256), rootSignatureHash: TestSignatureHash = .sha256,
         intermediateExtendedKeyUsage: [String]? = nil) throws {
        pki = try TestPKI(withIntermediate: withIntermediate, rootSignatureHash: rootSignatureHash,
                          intermediateKey: intermediateKey, intermediateExtendedKeyUsage: intermediateExtendedKeyUsage)
        rootPath = try pki.writeRootPEM()
        self.date = date
        let options = switch anchor {
        case .system: ProbeOptions(useSystemTrustStore: false, evaluationDate: date, additionalSystemAnchorsFile: rootPath,
                                   ctLogs: TrustLogs.list)
        case .user: ProbeOptions(caFile: rootPath, useSystemTrustStore: false, evaluationDate: date, ctLogs: TrustLogs.list)
        case .app: ProbeOptions.withAppAnchors(rootPath, evaluationDate: date, ctLogs: TrustLogs.list)
        }
        prober = try Prober(options: options)
    }

    /// Serves a leaf issued for `spec` (with the root appended to the chain when `serveRoot`),
    /// lets `configure` set stapling and SCT extensions, probes once, stops the server.
    func observe(_ spec: CertificateSpec, serveRoot: Bool = false, maxVersion: TLSVersion = .tls13,
                 requestStatus: Bool = true,
                 configure: (inout TLSServerConfiguration, TestIdentity) throws -> Void = { _, _ in }) async throws -> Observation {
        var identity = try pki.issue(spec)
        if serveRoot {
            identity = TestIdentity(certificatePEM: identity.certificatePEM, privateKeyPEM: identity.privateKeyPEM,
                                    chainPEM: identity.chainPEM + [pki.rootPEM], certificateDER: identity.certificateDER,
                                    spkiSHA256Base64: identity.spkiSHA256Base64)
        }
        var configuration = TLSServerConfiguration(identity: identity, maxVersion: maxVersion)
        try configure(&configuration, identity)
        let server = try TestTLSServer.start(configuration)
        defer { server.stop() }
        let request = ProbeRequest(target: Target(host: "127.0.0.1", port: server.port), offer: Prober.widestOffer,
                                   timeout: 5, requestStatus: requestStatus)
        return try await prober.probe(request).get()
    }

    func violations(_ observation: Observation, requireCertificateTransparency: Bool = false,
                    distrust: AppleDistrustList = .apple) -> [CertificateRuleViolation] {
        AppleCertificatePolicy.violations(in: observation, at: date,
                                          requireCertificateTransparency: requireCertificateTransparency, rules: .documented, logs: TrustLogs.list,
                                          distrust: distrust)
    }

    func ct(_ observation: Observation, requireCertificateTransparency: Bool = false) -> CTPolicyResult {
        AppleCertificatePolicy.judgement(in: observation, at: date,
                                         requireCertificateTransparency: requireCertificateTransparency, rules: .documented,
                                         logs: TrustLogs.list).certificateTransparency
    }
}

/// Fixed instants in UTC.
enum TrustClock {
    static func utc(_ year: Int, _ month: Int, _ day: Int) -> Date { utcMidnight(year, month, day) }

    /// Issued on 2025-03-01 and judged on 2025-03-10: after the current SCT table (2021-04-21)
    /// and after the logs below became usable (2024-11-26).
    static let issued = utc(2025, 3, 1)
    static let judged = utc(2025, 3, 10)

    /// A leaf valid for exactly `days` of Apple's inclusive days: notAfter is one second short
    /// of `days` * 86,400 s after notBefore, so one more second would make it `days + 1`.
    static func spec(issued notBefore: Date = issued, inclusiveDays days: Int, key: TestKey = .ec(curve: .p256),
                     signatureHash: TestSignatureHash = .sha256, extendedKeyUsage: [String]? = [CertificateSpec.serverAuth],
                     embeddedSCTs: [TestSCT] = []) -> CertificateSpec {
        CertificateSpec(key: key, signatureHash: signatureHash, notBefore: notBefore,
                        notAfter: notBefore.addingTimeInterval(Double(days) * 86_400 - 1),
                        extendedKeyUsage: extendedKeyUsage, embeddedSCTs: embeddedSCTs)
    }
}

/// Test logs standing in for four of Apple's (the same operators), usable since 2024-11-26, with
/// keys made at test time so their SCTs carry real signatures. Members are log IDs (base64).
enum TrustLogs {
    static let argon = try! TestCTLog(name: "Google 'Argon' test log", operator: "Google")
    static let xenon = try! TestCTLog(name: "Google 'Xenon' test log", operator: "Google")
    static let nimbus = try! TestCTLog(name: "Cloudflare 'Nimbus' test log", operator: "Cloudflare")
    static let wyvern = try! TestCTLog(name: "DigiCert 'Wyvern' test log", operator: "DigiCert")
    static let all = [argon, xenon, nimbus, wyvern]

    static var googleArgon: String { argon.logIDBase64 }
    static var googleXenon: String { xenon.logIDBase64 }
    static var cloudflareNimbus: String { nimbus.logIDBase64 }
    static var digiCertWyvern: String { wyvern.logIDBase64 }

    /// The list the fixture judges against, with the keys the prober checks signatures with.
    static let list = CTLogList(source: "test logs", logs: all.map {
        CTLog(logID: $0.logIDBase64, name: $0.name, operatorName: $0.operatorName, state: .usable,
              stateSince: TrustClock.utc(2024, 11, 26), api: .rfc6962)
    }, keys: TestCTLog.keys(all))

    /// An SCT from the test log with this ID, signed for real.
    static func sct(_ logID: String, at timestamp: Date = TrustClock.issued) -> TestSCT {
        TestSCT(log: all.first { $0.logIDBase64 == logID }!, timestamp: timestamp)
    }

    /// Three SCTs from three operators: enough for any lifetime up to 398 days.
    static var threeOperators: [TestSCT] { [sct(googleArgon), sct(cloudflareNimbus), sct(digiCertWyvern)] }
}

/// Adds an SCT list to the single response of a DER OCSP response, as CAs do for OCSP-delivered
/// SCTs (RFC 6962 3.3: singleExtensions, OID 1.3.6.1.4.1.11129.2.4.5). The response's signature
/// no longer covers the new bytes; the probe never verifies OCSP signatures (it only reports the
/// staple), so this tests what it reads, not what Apple would accept.
enum OCSPWithSCTs {
    static let sctListOID: [UInt8] = [0x06, 0x0A, 0x2B, 0x06, 0x01, 0x04, 0x01, 0xD6, 0x79, 0x02, 0x04, 0x05]

    /// SCTs from test logs are signed over `certificate` (the leaf's DER), as a log signs them.
    static func splice(_ response: [UInt8], scts: [TestSCT], certificate: [UInt8]) throws -> [UInt8] {
        let list = serializedSCTList(scts, certificate: certificate)
        let extnValue = tlv(0x04, tlv(0x04, list))
        let singleExtensions = tlv(0xA1, tlv(0x30, tlv(0x30, sctListOID + extnValue)))
        // OCSPResponse > [0] responseBytes > ResponseBytes > response OCTET STRING > BasicOCSPResponse
        //   > tbsResponseData > responses (the first SEQUENCE child) > the first SingleResponse.
        var outer = try DER(response)
        try outer.edit(path: [1, 0, 1]) { octets in
            var basic = try DER(octets.content)
            try basic.edit(path: [0]) { tbs in
                guard let responses = tbs.children.firstIndex(where: { $0.tag == 0x30 }) else { throw SpliceError() }
                try tbs.edit(path: [responses, 0]) { single in single.children.append(try DER(singleExtensions)) }
            }
            octets.content = basic.encoded
        }
        return outer.encoded
    }

    struct SpliceError: Error {}

    static func tlv(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        [tag] + length(content.count) + content
    }

    static func length(_ count: Int) -> [UInt8] {
        if count < 0x80 { return [UInt8(count)] }
        var bytes: [UInt8] = []
        var remaining = count
        while remaining > 0 { bytes.insert(UInt8(truncatingIfNeeded: remaining), at: 0); remaining >>= 8 }
        return [0x80 | UInt8(bytes.count)] + bytes
    }

    /// A minimal DER tree: constructed values (tag bit 0x20) hold children, others bytes.
    struct DER {
        var tag: UInt8
        var content: [UInt8]
        var children: [DER]

        init(_ bytes: [UInt8]) throws {
            var index = 0
            self = try DER.read(bytes, &index)
            guard index == bytes.count else { throw SpliceError() }
        }

        private init(tag: UInt8, content: [UInt8], children: [DER]) {
            self.tag = tag
            self.content = content
            self.children = children
        }

        static func read(_ bytes: [UInt8], _ index: inout Int) throws -> DER {
            guard index + 2 <= bytes.count else { throw SpliceError() }
            let tag = bytes[index]
            var length = Int(bytes[index + 1])
            index += 2
            if length & 0x80 != 0 {
                let count = length & 0x7F
                guard count <= 3, index + count <= bytes.count else { throw SpliceError() }
                length = bytes[index..<index + count].reduce(0) { $0 << 8 | Int($1) }
                index += count
            }
            guard index + length <= bytes.count else { throw SpliceError() }
            let content = Array(bytes[index..<index + length])
            index += length
            guard tag & 0x20 != 0 else { return DER(tag: tag, content: content, children: []) }
            var children: [DER] = []
            var inner = 0
            while inner < content.count { children.append(try read(content, &inner)) }
            return DER(tag: tag, content: [], children: children)
        }

        var encoded: [UInt8] {
            tlv(tag, tag & 0x20 != 0 ? children.flatMap(\.encoded) : content)
        }

        mutating func edit(path: [Int], _ change: (inout DER) throws -> Void) throws {
            guard let first = path.first else { return try change(&self) }
            guard children.indices.contains(first) else { throw SpliceError() }
            try children[first].edit(path: Array(path.dropFirst()), change)
        }
    }
}

extension ProbeOptions {
    /// Options whose only anchors are `file`'s, as an app sets them (AnchorSource.app).
    static func withAppAnchors(_ file: String, evaluationDate: Date, ctLogs: CTLogList) -> ProbeOptions {
        var options = ProbeOptions(evaluationDate: evaluationDate, ctLogs: ctLogs)
        options.appAnchorFile = file
        return options
    }
}
