package import OpenSSLSupport

/// A certificate chain to judge, leaf first: read from PEM (a bundle), DER (one certificate, or
/// a PKCS#7 certs-only message) or given as DER values. Untrusted input: bounded in size and
/// count as `atsprobe cert`'s files are (ChainFile), and a bad one is an error saying why.
public struct CertificateChain: Sendable {
    package let chain: ChainFile.Chain

    /// How many certificates the chain holds.
    public var count: Int { chain.count }

    /// A PEM bundle, a DER certificate or a PKCS#7 certs-only message (DER or PEM), as `cert`
    /// reads a file.
    public init(bytes: [UInt8]) throws(CertificateChainError) {
        guard bytes.count <= ChainFile.byteLimit else {
            throw CertificateChainError(code: .tooLarge, reason: "larger than \(ChainFile.byteLimit) bytes, not a certificate chain")
        }
        do {
            chain = try ChainFile.chain(in: bytes)
        } catch {
            throw CertificateChainError(code: error.code, reason: error.reason)
        }
    }

    /// PEM text: one or more CERTIFICATE blocks, leaf first.
    public init(pem: String) throws(CertificateChainError) {
        try self.init(bytes: Array(pem.utf8))
    }

    /// Each certificate's DER, leaf first.
    public init(der certificates: [[UInt8]]) throws(CertificateChainError) {
        guard !certificates.isEmpty else { throw CertificateChainError(code: .noCertificate, reason: "no certificate") }
        guard certificates.count <= ChainFile.certificateLimit else {
            throw CertificateChainError(code: .tooLarge, reason: "\(certificates.count) certificates: more than \(ChainFile.certificateLimit), no chain is this long")
        }
        var read: [X509Certificate] = []
        for (index, der) in certificates.enumerated() {
            guard let certificate = try? X509Certificate(der: der) else {
                throw CertificateChainError(code: .notACertificate, reason: "certificate \(index) is not a DER X.509 certificate")
            }
            read.append(certificate)
        }
        chain = ChainFile.Chain(certificates: read)
    }

    /// A chain `ChainFile` read.
    package init(_ chain: ChainFile.Chain) {
        self.chain = chain
    }
}

/// A chain that could not be read: one line saying why.
public struct CertificateChainError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong, for code: callers compare this, never `reason`'s text.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        case empty
        /// More bytes or certificates than any chain holds.
        case tooLarge
        /// No certificate: no readable block, or a PKCS#7 message without one.
        case noCertificate
        /// Not PEM, DER or PKCS#7, or a block or value that is not a certificate.
        case notACertificate
        /// This machine ran out of memory reading it.
        case outOfMemory
    }

    public var code: Code
    /// For people: why the chain could not be read.
    public var reason: String
    public var description: String { reason }
}
