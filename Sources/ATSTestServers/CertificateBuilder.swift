import Foundation
internal import COpenSSL
internal import OpenSSLSupport

/// Whether a certificate may sign others.
enum CertificateRole {
    case leaf
    case authority
}

/// The certificate and key that sign a new certificate; nil issuer certificate means self-signed.
struct Signer {
    let certificate: X509Certificate?
    let key: EVPKey
}

/// Makes one X.509 v3 certificate from a spec with the OpenSSL C API.
struct CertificateBuilder {
    let spec: CertificateSpec
    let role: CertificateRole
    let subjectKey: EVPKey
    /// nil: self-signed by `subjectKey`.
    let signer: Signer?

    func build() throws -> X509Certificate {
        let certificate = try X509Certificate.empty()
        // Positive 63-bit random serial: unique enough for one test run, always valid DER.
        try certificate.setVersion3(serial: UInt64.random(in: 1...UInt64(Int64.max)))
        // Whole seconds: both ends round the same way, so 398-day spans stay exact.
        try certificate.setValidity(notBefore: Int(spec.notBefore.timeIntervalSince1970.rounded(.down)),
                                    notAfter: Int(spec.notAfter.timeIntervalSince1970.rounded(.down)))

        var entries: [(field: String, value: String)] = []
        if !spec.commonName.isEmpty { entries.append(("CN", spec.commonName)) }
        entries.append(("O", "atsprobe tests"))
        try certificate.addSubjectEntries(entries)
        try certificate.setIssuerName(from: signer?.certificate)
        try certificate.setPublicKey(subjectKey)

        try certificate.addExtensions(extensions(), issuer: signer?.certificate)

        let signingKey = signer?.key ?? subjectKey
        // Ed25519 has no separate digest: OpenSSL wants NULL there.
        let digest = signingKey.isEd25519 ? nil : spec.signatureHash.digest
        try certificate.sign(with: signingKey, digest: digest, "signing the certificate")
        if !spec.embeddedSCTs.isEmpty {
            // The logs sign the precertificate: this TBSCertificate as signed so far (no SCT
            // list yet) and the issuer's key hash. Then the list goes in and the CA signs again;
            // removing the list from the final certificate gives back exactly this TBS.
            let tbs = try certificate.tbsDER
            let issuerKeyHash = try Digest.sha256(try signingKey.subjectPublicKeyInfoDER)
            let list = serializedSCTList(spec.embeddedSCTs, entry: SignedEntry.precertificate(issuerKeyHash: issuerKeyHash, tbs: tbs))
            // The SCT list extension's value is an OCTET STRING wrapping the TLS-encoded list (RFC 6962 3.3).
            try certificate.addExtension(nid: NID_ct_precert_scts, value: [0x04] + derLength(list.count) + list)
            try certificate.sign(with: signingKey, digest: digest, "signing the certificate with its SCTs")
        }
        return certificate
    }

    /// The extensions, in OpenSSL's configuration syntax.
    private func extensions() -> [(nid: Int32, value: String)] {
        var extensions: [(nid: Int32, value: String)] = []
        switch role {
        case .authority:
            extensions.append((NID_basic_constraints, "critical,CA:TRUE"))
            extensions.append((NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature"))
        case .leaf:
            extensions.append((NID_basic_constraints, "critical,CA:FALSE"))
            extensions.append((NID_key_usage, subjectKey.isRSA
                ? "critical,digitalSignature,keyEncipherment" : "critical,digitalSignature"))
        }
        let alternativeNames = spec.dnsNames.map { "DNS:\($0)" } + spec.ipAddresses.map { "IP:\($0)" }
        if !alternativeNames.isEmpty {
            extensions.append((NID_subject_alt_name, alternativeNames.joined(separator: ",")))
        }
        if let usages = spec.extendedKeyUsage, !usages.isEmpty {
            extensions.append((NID_ext_key_usage, usages.joined(separator: ",")))
        }
        if !spec.caIssuersURLs.isEmpty {
            extensions.append((NID_info_access, spec.caIssuersURLs.map { "caIssuers;URI:\($0)" }.joined(separator: ",")))
        }
        if spec.mustStaple { extensions.append((NID_tlsfeature, "status_request")) }
        extensions.append((NID_subject_key_identifier, "hash"))
        if signer?.certificate != nil {
            extensions.append((NID_authority_key_identifier, "keyid:always"))
        }
        return extensions
    }
}

extension TestIdentity {
    init(certificate: X509Certificate, key: EVPKey, chainPEM: [String]) throws {
        let spkiHash = try Digest.sha256(try key.subjectPublicKeyInfoDER)
        self.init(certificatePEM: try certificate.pem,
                  privateKeyPEM: try key.privateKeyPEM,
                  chainPEM: chainPEM,
                  certificateDER: try certificate.der,
                  spkiSHA256Base64: Data(spkiHash).base64EncodedString())
    }
}
