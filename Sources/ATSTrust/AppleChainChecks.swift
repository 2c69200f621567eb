#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
package import COpenSSL
package import OpenSSLSupport

/// The checks trustd makes on every path that OpenSSL's verifier does not make, each on the
/// path as built (leaf first, anchor last), each returning (path index, why):
/// - an extendedKeyUsage or authorityInfoAccess extension Apple's parser cannot read, or an
///   authorityKeyIdentifier with only one of authorityCertIssuer and authorityCertSerialNumber
///   (SecCertificate.c marks it unparseable, SecCEPAuthorityKeyIdentifier; SecPolicyServer.c SecPolicyCheckUnparseableExtension,
///   added to every policy by SecPolicy.c SecPolicyAddBasicCertOptions);
/// - an empty subject in a CA, or in a leaf whose subjectAltName is not critical
///   (SecPolicyLeafCallbacks.c SecPolicyCheckCertNonEmptySubject, over every certificate);
/// - a critical nameConstraints extension in an intermediate with a name form trustd does not
///   support (otherName, x400Address, ediPartyName, registeredID), used or not (SecPolicyServer.c
///   SecPolicyCheckBasicCertificateProcessing step (g), nameconstraints.c
///   SecNameConstraintsAreSubtreesSupported);
/// - a parent (an intermediate or the anchor) of version 3 without basicConstraints or with
///   cA false, and a v1/v2 intermediate under a v3 anchor (SecPolicyServer.c
///   SecPVCParentCertificateChecks, "common to intermediate and anchors").
enum AppleChainChecks {
    static func problems(path: [X509Certificate]) -> [(index: Int, detail: String)] {
        var found: [(Int, String)] = []
        let anchorIndex = path.count - 1
        for (index, certificate) in path.enumerated() {
            let cert = certificate
            if let name = unparseableExtension(cert) {
                found.append((index, "its \(name) extension cannot be parsed; Apple refuses the certificate (SecPolicyCheckUnparseableExtension)"))
            }
            let isCA = hasBasicConstraints(cert) && cert.extensionFlags & UInt32(EXFLAG_CA) != 0
            if cert.subjectEntryCount == 0 {
                if isCA {
                    found.append((index, "a CA with an empty subject; Apple refuses it (SecPolicyCheckCertNonEmptySubject)"))
                } else if !hasCriticalSubjectAltName(cert) {
                    found.append((index, "an empty subject without a critical subjectAltName; Apple refuses it (SecPolicyCheckCertNonEmptySubject)"))
                }
            }
            guard index > 0 else { continue }
            if index < anchorIndex, let form = unsupportedCriticalNameConstraint(cert) {
                found.append((index, "a critical nameConstraints extension with a \(form) subtree, a form Apple does not support; Apple refuses the chain (SecNameConstraintsAreSubtreesSupported)"))
            }
            if cert.version >= 2 {
                if !hasBasicConstraints(cert) {
                    found.append((index, "an issuer (\(index == anchorIndex ? "the anchor" : "an intermediate")) without basicConstraints; Apple refuses it (SecPVCParentCertificateChecks)"))
                } else if !isCA {
                    found.append((index, "an issuer (\(index == anchorIndex ? "the anchor" : "an intermediate")) whose basicConstraints say cA false; Apple refuses it (SecPVCParentCertificateChecks)"))
                }
            } else if index < anchorIndex, path[anchorIndex].version >= 2 {
                found.append((index, "a version 1 intermediate under a version 3 anchor; Apple refuses it (SecPVCParentCertificateChecks)"))
            }
        }
        return found
    }

    private static func hasBasicConstraints(_ cert: X509Certificate) -> Bool {
        cert.extensionValue(nid: NID_basic_constraints) != nil
    }

    private static func hasCriticalSubjectAltName(_ cert: X509Certificate) -> Bool {
        cert.extensionValue(nid: NID_subject_alt_name)?.critical ?? false
    }

    /// "extendedKeyUsage", "authorityInfoAccess" or "authorityKeyIdentifier" when that extension is present and OpenSSL's
    /// decoder refuses its value (Apple's DER parser refuses the same malformed encodings).
    private static func unparseableExtension(_ cert: X509Certificate) -> String? {
        for (nid, name) in [(NID_ext_key_usage, "extendedKeyUsage"), (NID_info_access, "authorityInfoAccess")] {
            guard let value = cert.extensionValue(nid: nid)?.value else { continue }
            guard value.withUnsafeBufferPointer({ ASN1Text.decodesExactly($0, asExtension: nid) }) else { return name }
        }
        return authorityKeyIdentifierIsHalf(cert) ? "authorityKeyIdentifier" : nil
    }

    /// An authorityKeyIdentifier with authorityCertIssuer [1] or authorityCertSerialNumber [2]
    /// but not both: SecCertificate.c SecCEPAuthorityKeyIdentifier requires both or neither.
    private static func authorityKeyIdentifierIsHalf(_ cert: X509Certificate) -> Bool {
        guard let der = cert.extensionValue(nid: NID_authority_key_identifier)?.value else { return false }
        guard let outer = DERItem.read(der, at: 0), outer.tag == 0x30 else { return false }
        var (issuer, serial) = (false, false)
        var offset = outer.contentStart
        while offset < outer.end, let item = DERItem.read(der, at: offset) {
            if item.tag == 0xA1 { issuer = true }
            if item.tag == 0x82 { serial = true }
            offset = item.end
        }
        return issuer != serial
    }

    /// The first name form in a critical nameConstraints extension that trustd does not
    /// support, read from the DER: NameConstraints ::= SEQUENCE { [0] permitted, [1] excluded },
    /// each a SEQUENCE OF GeneralSubtree ::= SEQUENCE { base GeneralName, ... }.
    static func unsupportedCriticalNameConstraint(_ cert: X509Certificate) -> String? {
        guard let constraints = cert.extensionValue(nid: NID_name_constraints), constraints.critical else { return nil }
        let der = constraints.value
        guard let outer = DERItem.read(der, at: 0), outer.tag == 0x30 else { return nil }
        var trees = outer.contentStart
        while trees < outer.end, let tree = DERItem.read(der, at: trees), tree.end <= outer.end {
            var subtree = tree.contentStart
            while subtree < tree.end, let item = DERItem.read(der, at: subtree), item.end <= tree.end {
                if item.tag == 0x30, let base = DERItem.read(der, at: item.contentStart) {
                    switch base.tag & 0x1F {
                    case 1, 2, 4, 6, 7: break  // rfc822Name, dNSName, directoryName, URI, iPAddress
                    case 0: return "otherName"
                    case 3: return "x400Address"
                    case 5: return "ediPartyName"
                    case 8: return "registeredID"
                    default: return "unknown"
                    }
                }
                subtree = item.end
            }
            trees = tree.end
        }
        return nil
    }
}

/// One DER element's tag and bounds (definite lengths only, up to four length bytes).
struct DERItem {
    var tag: UInt8
    var contentStart: Int
    var end: Int

    static func read(_ der: [UInt8], at offset: Int) -> DERItem? {
        guard offset + 2 <= der.count else { return nil }
        let tag = der[offset]
        var length = Int(der[offset + 1])
        var start = offset + 2
        if length & 0x80 != 0 {
            let count = length & 0x7F
            guard count > 0, count <= 4, start + count <= der.count else { return nil }
            length = der[start..<start + count].reduce(0) { $0 << 8 | Int($1) }
            start += count
        }
        guard start + length <= der.count else { return nil }
        return DERItem(tag: tag, contentStart: start, end: start + length)
    }
}
