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

/// Where the evaluator finds a parent no other source has: the certificate's caIssuers
/// (Authority Information Access) URLs, as Apple's path builder asks the network
/// (SecTrustServer.c, kSecCAIssuerSource; SecCAIssuerRequest.m). A protocol, as
/// swift-certificates puts OCSP behind one, so the evaluator needs no socket: the probe passes
/// one over the network (ATSProbe's IssuerFetcher, shared by the run, bounded by the probe's
/// deadline), the offline `cert` command the same, and tests may pass a table.
package protocol IssuerSource: Sendable {
    /// The certificates `url` gives, as DER, or why not.
    func certificates(from url: String) async -> CAIssuers.Outcome
}

/// What Apple's caIssuers fetch accepts and the bounds on it; pure parsing, no network.
/// Everything here is untrusted network input: sizes are bounded and a failure is a value.
package enum CAIssuers {
    /// Bytes read at most for a response (head and body): intermediates are 1-2 KB, bundles a
    /// few. It bounds a PKCS#7 bundle too: every certificate in it is kept (Apple takes all of
    /// a certs-only message, SecCMSCertificatesOnlyMessageCopyCertificates).
    package static let responseLimit = 64 * 1024
    /// Apple skips the fetch when a certificate names this many caIssuers URLs or more
    /// (SecCAIssuerRequest.m, CA_ISSUERS_REQUEST_THRESHOLD).
    package static let urlThreshold = 10
    /// Fetched issuers added to one path at most (each may need its own issuer fetched).
    package static let hopLimit = 4
    /// URLs read from one certificate at most (the count is still the true one).
    package static let urlListLimit = 64

    /// What one URL gave: DER certificates, or why not.
    package enum Outcome: Sendable, Equatable {
        case certificates([[UInt8]])
        case failure(String)
    }

    /// http://host[:port]/path, with the host as a name, IPv4 or [IPv6].
    package struct HTTPURL: Equatable {
        package var host: String
        package var port: Int
        package var path: String
        package var hostHeader: String

        package init?(_ text: String) {
            guard text.count <= 2048, text.lowercased().hasPrefix("http://") else { return nil }
            let rest = text.dropFirst(7)
            let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
            let authority = String(rest[..<authorityEnd])
            var path = String(rest[authorityEnd...])
            if let fragment = path.firstIndex(of: "#") { path = String(path[..<fragment]) }
            if path.isEmpty || path.hasPrefix("?") { path = "/" + path }
            guard !authority.isEmpty, !authority.contains("@"),
                  path.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else { return nil }
            var host = authority
            var port = 80
            if authority.hasPrefix("[") {
                guard let close = authority.firstIndex(of: "]") else { return nil }
                host = String(authority[authority.index(after: authority.startIndex)..<close])
                let after = authority[authority.index(after: close)...]
                if !after.isEmpty {
                    guard after.hasPrefix(":"), let value = Int(after.dropFirst()), (1...65535).contains(value) else { return nil }
                    port = value
                }
            } else if let colon = authority.lastIndex(of: ":") {
                host = String(authority[..<colon])
                guard let value = Int(authority[authority.index(after: colon)...]), (1...65535).contains(value) else { return nil }
                port = value
            }
            guard !host.isEmpty, host.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F && $0 != "/" }) else { return nil }
            self.host = host
            self.port = port
            self.path = path
            hostHeader = authority
        }
    }

    /// The status must be 200; the body (bounded by Content-Length when given) is decoded.
    package static func parse(_ response: [UInt8]) -> Outcome {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let headEnd = response.indices.dropLast(3).first(where: { Array(response[$0..<$0 + 4]) == separator }) else {
            return .failure("no complete HTTP response head")
        }
        let head = String(decoding: response[..<headEnd], as: UTF8.self)
        let lines = head.split(separator: "\r\n", omittingEmptySubsequences: false)
        let status = lines.first.map { $0.split(separator: " ", maxSplits: 2) } ?? []
        guard status.count >= 2, status[0].hasPrefix("HTTP/1."), let code = Int(status[1]) else {
            return .failure("not an HTTP response")
        }
        guard code == 200 else { return .failure("HTTP \(code)") }
        var body = Array(response[(headEnd + 4)...])
        for line in lines.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let name = parts[0].trimmingWhitespace().lowercased()
            let value = parts[1].trimmingWhitespace()
            if name == "transfer-encoding", value.lowercased() != "identity" { return .failure("Transfer-Encoding \(value.prefix(40)) not supported") }
            if name == "content-length", let length = Int(value), length >= 0 {
                guard length <= body.count else { return .failure("body shorter than its Content-Length") }
                body = Array(body.prefix(length))
            }
        }
        let certificates = decodeCertificates(body)
        return certificates.isEmpty ? .failure("the body (\(body.count) bytes) is not a DER or PKCS#7 certificate") : .certificates(certificates)
    }

    /// One DER certificate, the certificates of a certs-only PKCS#7, or a PEM certificate: the
    /// three forms SecCAIssuerRequest.m accepts, in its order. Each as DER.
    package static func decodeCertificates(_ body: [UInt8]) -> [[UInt8]] {
        defer { OpenSSLErrors.clear() }
        guard !body.isEmpty else { return [] }
        if let cert = try? X509Certificate(der: body) {
            return (try? cert.der).map { [$0] } ?? []
        }
        // Every certificate of a PKCS#7 message: the response bound (64 KiB) bounds their number.
        if let certificates = body.withUnsafeBufferPointer({ buffer -> [X509Certificate]? in
            guard let message = PKCS7Message(der: buffer) else { return nil }
            return message.certificates(limit: .max) ?? []
        }) {
            return certificates.compactMap { try? $0.der }
        }
        guard let bio = try? MemoryBIO(copying: body), let cert = X509Certificate.readPEM(from: bio) else { return [] }
        return (try? cert.der).map { [$0] } ?? []
    }

    /// The caIssuers URIs of `cert`, in order (at most `urlListLimit`), and how many it names
    /// in all: a certificate with 1,000 is reported with 1,000, not with the number read.
    package static func caIssuerURLs(of certificate: X509Certificate) -> (urls: [String], total: Int) {
        certificate.caIssuerURIs(limit: urlListLimit, nameLimit: CertificateReader.nameLimit)
    }
}
