#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
package import COpenSSL
package import CATSProbeShims
package import OpenSSLSupport
import TLSFacts

/// Certificate status a server delivered: SCTs (TLS extension, OCSP staple) and the OCSP staple itself.
package enum StatusReader {
    package static let sctLimit = 64

    /// SCTs from an OpenSSL SCT stack (borrowed).
    package static func timestamps(in list: OpaquePointer,
                           source: (OpaquePointer) -> SignedCertificateTimestamp.Source?,
                           check: (OpaquePointer) -> SignedCertificateTimestamp.SignatureCheck) -> [SignedCertificateTimestamp] {
        var result: [SignedCertificateTimestamp] = []
        for index in 0..<min(CATSProbeShims_sk_SCT_num(list), Int32(sctLimit)) {
            guard let sct = CATSProbeShims_sk_SCT_value(list, index), let origin = source(sct) else { continue }
            var logID: UnsafeMutablePointer<UInt8>?
            let length = SCT_get0_log_id(sct, &logID)
            let id = logID.map { Data(bytes: $0, count: Int(length)).base64EncodedString() } ?? ""
            let milliseconds = SCT_get_timestamp(sct)
            let version = SCT_get_version(sct) == SCT_VERSION_V1 ? 0 : -1
            result.append(SignedCertificateTimestamp(source: origin, logID: id,
                                                     timestamp: Date(timeIntervalSince1970: Double(milliseconds) / 1000),
                                                     version: version, signature: check(sct)))
        }
        return result
    }

    /// SCTs delivered in the handshake: the TLS extension and the OCSP staple (embedded ones are
    /// read from the certificate itself).
    package static func deliveredSCTs(of ssl: borrowing SSLObject,
                              check: (OpaquePointer) -> SignedCertificateTimestamp.SignatureCheck) -> [SignedCertificateTimestamp] {
        guard let found = ssl.withPeerSCTs({ list in
            list.map { list in
                timestamps(in: list, source: { sct in
                    switch SCT_get_source(sct) {
                    case SCT_SOURCE_TLS_EXTENSION: .tlsExtension
                    case SCT_SOURCE_OCSP_STAPLED_RESPONSE: .ocspStaple
                    default: nil
                    }
                }, check: check)
            }
        }) else {
            OpenSSLErrors.clear()
            return []
        }
        // OpenSSL moves each source's SCTs onto the peer list by popping, which reverses them:
        // restore the order they were sent in, source by source.
        return [SignedCertificateTimestamp.Source.tlsExtension, .ocspStaple].flatMap { source in
            found.filter { $0.source == source }.reversed()
        }
    }

    /// The stapled OCSP response, parsed; the leaf's status when the response names it.
    package static func ocspStaple(of ssl: borrowing SSLObject, leaf: X509Certificate?, issuer: X509Certificate?) -> OCSPStaple? {
        ssl.withStapledOCSPResponse { bytes in bytes.map { ocspStaple(der: $0, leaf: leaf, issuer: issuer) } }
    }

    /// An OCSP response's bytes, parsed; the leaf's status when the response names it.
    package static func ocspStaple(der: UnsafeBufferPointer<UInt8>, leaf: X509Certificate?, issuer: X509Certificate?) -> OCSPStaple {
        guard let response = OCSPResponse(der: der) else {
            OpenSSLErrors.clear()
            return OCSPStaple(responseStatus: "malformed", certificateStatus: nil, thisUpdate: nil, nextUpdate: nil)
        }
        let statusCode = response.status
        let statusName = responseStatusNames[statusCode] ?? "status \(statusCode)"
        var staple = OCSPStaple(responseStatus: statusName, certificateStatus: nil, thisUpdate: nil, nextUpdate: nil)
        guard statusCode == OCSP_RESPONSE_STATUS_SUCCESSFUL, let basic = response.basic() else {
            OpenSSLErrors.clear()
            return staple
        }
        guard let leaf else { return staple }
        let single: OCSPSingleStatus?
        if let issuer, let id = OCSPCertificateID(subject: leaf, issuer: issuer) {
            single = basic.status(of: id)
        } else {
            // The issuer was not served (a leaf signed by the root): the leaf's serial names it.
            single = basic.status(forSerialOf: leaf)
        }
        if let single {
            staple.certificateStatus = certificateStatusNames[single.status] ?? "status \(single.status)"
            staple.thisUpdate = single.thisUpdate.map { Date(timeIntervalSince1970: TimeInterval($0)) }
            staple.nextUpdate = single.nextUpdate.map { Date(timeIntervalSince1970: TimeInterval($0)) }
        }
        OpenSSLErrors.clear()
        return staple
    }

    // RFC 6960 names, as Apple and OpenSSL spell them.
    package static let responseStatusNames: [Int32: String] = [
        0: "successful", 1: "malformedRequest", 2: "internalError", 3: "tryLater", 5: "sigRequired", 6: "unauthorized",
    ]
    package static let certificateStatusNames: [Int32: String] = [0: "good", 1: "revoked", 2: "unknown"]
}
