/// A certificate and its private key, PEM. `chainPEM` is what a server sends after the leaf (intermediates).
package struct TestIdentity: Sendable, Hashable {
    package let certificatePEM: String
    package let privateKeyPEM: String
    package let chainPEM: [String]
    package let certificateDER: [UInt8]
    /// base64(SHA-256(DER SubjectPublicKeyInfo)) of the leaf, the form pinning uses.
    package let spkiSHA256Base64: String

    package init(certificatePEM: String, privateKeyPEM: String, chainPEM: [String],
                certificateDER: [UInt8], spkiSHA256Base64: String) {
        self.certificatePEM = certificatePEM
        self.privateKeyPEM = privateKeyPEM
        self.chainPEM = chainPEM
        self.certificateDER = certificateDER
        self.spkiSHA256Base64 = spkiSHA256Base64
    }

    /// The leaf followed by the chain, as one PEM text (for files and `openssl -CAfile`).
    package var fullChainPEM: String {
        ([certificatePEM] + chainPEM).joined()
    }

    /// The same leaf and key with no chain: a server that sends its leaf alone (the missing
    /// intermediate left to caIssuers fetching).
    package var leafOnly: TestIdentity {
        TestIdentity(certificatePEM: certificatePEM, privateKeyPEM: privateKeyPEM, chainPEM: [],
                     certificateDER: certificateDER, spkiSHA256Base64: spkiSHA256Base64)
    }
}
