import TLSFacts

/// The cipher-suite lists of ats-reference sections 2 and 4b, by IANA code point.
/// Each list is data; a rule set picks the lists that were true for its release.
package enum SuiteTables {
    /// TLS 1.3: every suite Apple offers is accepted by ATS.
    package static let tls13: [CipherSuite] = codes(0x1301, 0x1302, 0x1303)

    /// The documented forward-secret list (11 suites; no ECDHE_RSA_AES_256_CBC_SHA, no CHACHA20).
    package static let documentedForwardSecret: [CipherSuite] = codes(
        0xC02C, 0xC030, 0xC02B, 0xC02F, 0xC024, 0xC028, 0xC00A, 0xC027, 0xC023, 0xC013, 0xC009)

    /// The documented non-forward-secret (TLS_RSA) list, allowed with NSExceptionRequiresForwardSecrecy = NO.
    package static let documentedNonForwardSecret: [CipherSuite] = codes(0x009D, 0x009C, 0x003D, 0x0035, 0x003C, 0x002F)

    /// Security-60158 (iOS 15.4 / macOS 12.3) SecProtocolInternal.h: ECDHE_{ECDSA,RSA} x
    /// {AES_256_GCM, AES_128_GCM, CHACHA20, AES_256_CBC_SHA, AES_128_CBC_SHA}.
    package static let appleCode2022ForwardSecret: [CipherSuite] = codes(
        0xC02C, 0xC02B, 0xCCA9, 0xC030, 0xC02F, 0xCCA8, 0xC00A, 0xC009, 0xC014, 0xC013)

    /// Security-60158: TLS_RSA with AES_256_GCM, AES_128_GCM, AES_256_CBC_SHA, AES_128_CBC_SHA.
    package static let appleCode2022NonForwardSecret: [CipherSuite] = codes(0x009D, 0x009C, 0x0035, 0x002F)

    /// 3DES, still in the platform offer (never an ATS suite).
    static let tripleDES: [CipherSuite] = codes(0xC008, 0xC012, 0x000A)

    /// What URLSession offers with ATS off, iOS 15.4 .. 26 / macOS 12.3 .. 26.
    package static let platform2022: [CipherSuite] = tls13 + appleCode2022ForwardSecret + appleCode2022NonForwardSecret + tripleDES

    /// What URLSession offers with ATS off, iOS 12.2 .. 15.3: the 2022 list plus the CBC_SHA256/384 suites.
    package static let platform2019: [CipherSuite] = tls13 + codes(
        0xC02C, 0xC02B, 0xC024, 0xC023, 0xC00A, 0xC009, 0xCCA9,
        0xC030, 0xC02F, 0xC028, 0xC027, 0xC014, 0xC013, 0xCCA8,
        0x009D, 0x009C, 0x003D, 0x003C, 0x0035, 0x002F) + tripleDES

    /// Apple's preference order (Safari/URLSession ClientHellos): TLS 1.3 first, then by cipher
    /// strength with ECDHE_ECDSA before ECDHE_RSA and GCM/ChaCha before CBC, TLS_RSA, then 3DES.
    package static let preferenceOrder: [CipherSuite] = tls13 + codes(
        0xC02C, 0xC02B, 0xCCA9, 0xC030, 0xC02F, 0xCCA8,
        0xC024, 0xC023, 0xC028, 0xC027,
        0xC00A, 0xC009, 0xC014, 0xC013,
        0x009D, 0x009C, 0x003D, 0x003C, 0x0035, 0x002F) + tripleDES

    /// `suites` deduplicated and sorted into Apple's preference order (unknown suites last, by code point).
    /// Each suite is ranked once (the table is built once per process): ranking inside the
    /// comparison rebuilt the table and looked it up twice per comparison, 1.7 million
    /// instructions per audit target (callgrind, docs/performance.md).
    package static func ordered<S: Sequence>(_ suites: S) -> [CipherSuite] where S.Element == CipherSuite {
        var seen = Set<CipherSuite>()
        return suites.filter { seen.insert($0).inserted }
            .map { (rank: preferenceRank[$0] ?? Int.max, suite: $0) }
            .sorted { $0.rank != $1.rank ? $0.rank < $1.rank : $0.suite < $1.suite }
            .map(\.suite)
    }

    /// Each suite's place in `preferenceOrder`.
    private static let preferenceRank: [CipherSuite: Int] = Dictionary(uniqueKeysWithValues: preferenceOrder.enumerated().map { ($1, $0) })

    private static func codes(_ values: UInt16...) -> [CipherSuite] { values.map(CipherSuite.init(rawValue:)) }
}
