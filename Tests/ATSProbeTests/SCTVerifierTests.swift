import Foundation
import Testing
import TLSFacts
@testable import ATSProbe
import ATSTrust

/// The verifier against a certificate and SCT made by another implementation: the RFC 6962
/// reference implementation's test certificate with one embedded SCT, its issuer, and its test
/// log's key, as shipped in OpenSSL's test data (test/certs/embeddedSCTs1.pem and
/// embeddedSCTs1_issuer.pem). Our own test logs sign and verify with the same code, so only an
/// outside SCT shows that the precertificate is rebuilt the way logs build it.
@Suite("SCT signatures against the reference implementation")
struct SCTVerifierTests {
    static let logID = "3xwuwRUAlFJHqWFoMl3cXHlZ6PfG04j8AC4LvT9012Q="
    static let logKey = "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEmXg8sUUzwBYaWrRb+V0IopzQ6o3UyEJ04r5ZrRXGdpYM8K+hB0pXrGRLI0eeWz+3skXrS0IO83AhA3GpRL6s6w=="

    static let leaf = """
    -----BEGIN CERTIFICATE-----
    MIIDWzCCAsSgAwIBAgIBBzANBgkqhkiG9w0BAQUFADBVMQswCQYDVQQGEwJHQjEk
    MCIGA1UEChMbQ2VydGlmaWNhdGUgVHJhbnNwYXJlbmN5IENBMQ4wDAYDVQQIEwVX
    YWxlczEQMA4GA1UEBxMHRXJ3IFdlbjAgFw0xMjA2MDEwMDAwMDBaGA8yMTIyMDYw
    MTAwMDAwMFowUjELMAkGA1UEBhMCR0IxITAfBgNVBAoTGENlcnRpZmljYXRlIFRy
    YW5zcGFyZW5jeTEOMAwGA1UECBMFV2FsZXMxEDAOBgNVBAcTB0VydyBXZW4wgZ8w
    DQYJKoZIhvcNAQEBBQADgY0AMIGJAoGBAL7vmOfCaHeuOF91MloMHTKb7fGPqvTX
    lr8EfrfhzhXJW6L4DuRYvX24b4pLJSGRp5vXAMOOnAOJtFzU3JoSCrIeDLQc0Oco
    BaQQzZxb211JJ3JtrxcQ9gGHN36iWxoeOe7QuIEZ3BVNxo99qOMMrxWKM+bJUJ9K
    BbAUCf9d2H61AgMBAAGjggE6MIIBNjAdBgNVHQ4EFgQUIDFUGvJcBf/YZYtoQ3lP
    XpA297QwfQYDVR0jBHYwdIAUX52IDchz5lTU+A3Y5rDBJLRHw1WhWaRXMFUxCzAJ
    BgNVBAYTAkdCMSQwIgYDVQQKExtDZXJ0aWZpY2F0ZSBUcmFuc3BhcmVuY3kgQ0Ex
    DjAMBgNVBAgTBVdhbGVzMRAwDgYDVQQHEwdFcncgV2VuggEAMAkGA1UdEwQCMAAw
    gYoGCisGAQQB1nkCBAIEfAR6AHgAdgDfHC7BFQCUUkepYWgyXdxceVno98bTiPwA
    Lgu9P3TXZAAAAT3bJ9+TAAAEAwBHMEUCIQC4xdN1m4R0fdo8DiEa+ZByLbWTFHmT
    +S7EmfEbICrGfAIgDd3R7jPcFUn5eZhFwurLECF7pVlme6s76gwA5JnjF6owDQYJ
    KoZIhvcNAQEFBQADgYEAJZfiWhJWxF2L7houq4+qoT36ydZj6/pK4bfsQSpOwOy5
    NohMmk0KQPz2cFcv4hnOQUMF7WDc9sznTwkGQ/YX01D5P6gaLk0gunDk4TLkOCmI
    oee59fiu+S6Wh91VSOiLsGnxE61J26QBOs3YRkDWLJw3Sb8oQLJ06cvOjk8SuzI=
    -----END CERTIFICATE-----
    """

    static let issuer = """
    -----BEGIN CERTIFICATE-----
    MIIC0jCCAjugAwIBAgIBADANBgkqhkiG9w0BAQUFADBVMQswCQYDVQQGEwJHQjEk
    MCIGA1UEChMbQ2VydGlmaWNhdGUgVHJhbnNwYXJlbmN5IENBMQ4wDAYDVQQIEwVX
    YWxlczEQMA4GA1UEBxMHRXJ3IFdlbjAgFw0xMjA2MDEwMDAwMDBaGA8yMTIyMDYw
    MTAwMDAwMFowVTELMAkGA1UEBhMCR0IxJDAiBgNVBAoTG0NlcnRpZmljYXRlIFRy
    YW5zcGFyZW5jeSBDQTEOMAwGA1UECBMFV2FsZXMxEDAOBgNVBAcTB0VydyBXZW4w
    gZ8wDQYJKoZIhvcNAQEBBQADgY0AMIGJAoGBANWKaFNiEKJxGZNud4MhGBwqQBPG
    0HuMduuRV9PQ+0s7UW7Oy9HJjZHFL3Q/q2NdVQmc0Tq68xrlQUQkUadMeBbyJDz4
    SM8oMczme6BKWiOBnzy6N+Yk2cO9spm4Od3+JjHSyzqE/HuytcUvz8FP/0BvXNRG
    acuy98/fhvtqudGxAgMBAAGjga8wgawwHQYDVR0OBBYEFF+diA3Ic+ZU1PgN2Oaw
    wSS0R8NVMH0GA1UdIwR2MHSAFF+diA3Ic+ZU1PgN2OawwSS0R8NVoVmkVzBVMQsw
    CQYDVQQGEwJHQjEkMCIGA1UEChMbQ2VydGlmaWNhdGUgVHJhbnNwYXJlbmN5IENB
    MQ4wDAYDVQQIEwVXYWxlczEQMA4GA1UEBxMHRXJ3IFdlboIBADAMBgNVHRMEBTAD
    AQH/MA0GCSqGSIb3DQEBBQUAA4GBABU/yRBFzR/EjUgCnmXKnwmzbbl7FNbS+zia
    VH81tKqO6rReC1I3EAiAj0nL13GVZ3+s86HjE1PEp/mZca545Auk3OgD9SCwL8J8
    s4vjYJUVAC8sQmtO717T6sP5iurLXlofH80kgtDAx+ugi7DIlCnGysd+fGnHQd2d
    8S14Ahqm
    -----END CERTIFICATE-----
    """

    var keys: [String: [UInt8]] { [Self.logID: Array(Data(base64Encoded: Self.logKey)!)] }

    @Test func theReferenceLogsSignatureVerifies() {
        #expect(CTLogKey.logID(ofKey: Array(Data(base64Encoded: Self.logKey)!)) == Self.logID)
        let scts = SCTVerifier(keys: keys).embeddedSCTs(leafPEM: Self.leaf, issuerPEM: Self.issuer)
        #expect(scts.count == 1)
        #expect(scts.first?.logID == Self.logID)
        #expect(scts.first?.timestamp == Date(timeIntervalSince1970: 1_365_181_456.275))
        #expect(scts.first?.signature == .valid)
    }

    @Test func theWrongIssuerOrNoKeyDoesNot() {
        // Any other issuer key changes the precertificate entry's key hash.
        let otherIssuer = SCTVerifier(keys: keys).embeddedSCTs(leafPEM: Self.leaf, issuerPEM: Self.leaf)
        #expect(otherIssuer.map(\.signature) == [.invalid])
        #expect(SCTVerifier(keys: keys).embeddedSCTs(leafPEM: Self.leaf, issuerPEM: "").map(\.signature) == [.noIssuer])
        #expect(SCTVerifier(keys: [:]).embeddedSCTs(leafPEM: Self.leaf, issuerPEM: Self.issuer).map(\.signature) == [.unknownLog])
    }
}
