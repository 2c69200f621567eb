#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
package import COpenSSL
package import CATSProbeShims
package import OpenSSLSupport
import TextSupport
import TLSFacts

/// A certificate chain read from a file for `atsprobe cert`: a PEM bundle (leaf first), one DER
/// certificate, or a PKCS#7 certs-only message (DER or PEM). Every byte is untrusted input:
/// the file is read through BoundedFile (a FIFO or a device is refused, never waited on), the
/// size and the number of certificates are bounded, and a bad file is one line saying why.
package enum ChainFile {
    /// A chain of real certificates is a few KB; this bounds a wrong argument (a 50 MB file is refused unread).
    package static let byteLimit = 1024 * 1024
    /// Certificates in one chain at most: a server's certificate message is bounded by OpenSSL
    /// at 100 KiB, a few hundred small certificates; a longer "chain" is not one anyone serves.
    package static let certificateLimit = 256

    /// A chain as read: opaque outside the package's modules (the certificates are OpenSSL's).
    package struct Chain: Sendable {
        package let certificates: [X509Certificate]
        /// How many certificates the file holds.
        package var count: Int { certificates.count }
    }

    /// The chain in `bytes` (see `certificates(in:)`).
    package static func chain(in bytes: [UInt8]) throws(ReadError) -> Chain {
        Chain(certificates: try certificates(in: bytes))
    }

    package struct ReadError: Error, Equatable, CustomStringConvertible {
        package var code: CertificateChainError.Code
        package var reason: String
        package var description: String { reason }
    }

    /// The certificates of `bytes`, in file order, as DER.
    package static func certificates(in bytes: [UInt8]) throws(ReadError) -> [X509Certificate] {
        defer { OpenSSLErrors.clear() }
        guard !bytes.isEmpty else { throw ReadError(code: .empty, reason: "empty file") }
        let text = String(decoding: bytes.prefix(64 * 1024), as: UTF8.self)
        if text.contains("-----BEGIN ") {
            return try pem(bytes)
        }
        if let cert = try? X509Certificate(der: bytes) { return [cert] }
        if let certificates = pkcs7(der: bytes) {
            guard !certificates.isEmpty else { throw ReadError(code: .noCertificate, reason: "a PKCS#7 message with no certificate") }
            return try bounded(certificates)
        }
        throw ReadError(code: .notACertificate, reason: "not a certificate chain (expected PEM certificates, one DER certificate or a PKCS#7 certs-only message)")
    }

    private static func bounded(_ certificates: [X509Certificate]) throws(ReadError) -> [X509Certificate] {
        guard certificates.count <= certificateLimit else {
            throw ReadError(code: .tooLarge, reason: "\(certificates.count) certificates: more than \(certificateLimit), no chain is this long")
        }
        return certificates
    }

    /// PEM: every CERTIFICATE block in order; a PKCS7 block gives its certificates. Any other
    /// block (a key, a request) is skipped; a file with no certificate is an error.
    private static func pem(_ bytes: [UInt8]) throws(ReadError) -> [X509Certificate] {
        guard let bio = try? MemoryBIO(copying: bytes) else { throw ReadError(code: .outOfMemory, reason: "out of memory") }
        var certificates: [X509Certificate] = []
        var blocks = 0
        var extra = 0
        try bio.readPEMBlocks { kind, der throws(ReadError) in
            blocks += 1
            // Past the bound, blocks are only counted, so the error gives the file's true count.
            if certificates.count + extra >= certificateLimit {
                if kind.hasSuffix("CERTIFICATE") { extra += 1 }
                return true
            }
            switch kind {
            case "CERTIFICATE", "X509 CERTIFICATE", "TRUSTED CERTIFICATE":
                guard let cert = try? X509Certificate(der: der) else {
                    throw ReadError(code: .notACertificate, reason: "PEM block \(blocks) (\(kind)) is not a readable certificate")
                }
                certificates.append(cert)
            case "PKCS7":
                guard let inner = pkcs7(der: der) else { throw ReadError(code: .notACertificate, reason: "PEM block \(blocks) (PKCS7) is not a certs-only message") }
                certificates += inner
            default:
                break
            }
            return true
        }
        if extra > 0 {
            throw ReadError(code: .tooLarge, reason: "\(certificates.count + extra) certificates: more than \(certificateLimit), no chain is this long")
        }
        guard !certificates.isEmpty else {
            throw ReadError(code: .noCertificate, reason: blocks == 0 ? "no PEM block could be read" : "no CERTIFICATE block among its \(blocks) PEM block(s)")
        }
        return try bounded(certificates)
    }

    /// A certs-only PKCS#7 (CMS SignedData) message's certificates, every one of them (the byte
    /// bound bounds their number); nil when `der` is not one.
    package static func pkcs7(der: [UInt8]) -> [X509Certificate]? {
        der.withUnsafeBufferPointer { buffer in
            guard let message = PKCS7Message(der: buffer) else { return nil }
            return message.certificates(limit: certificateLimit + 1) ?? []
        }
    }
}
