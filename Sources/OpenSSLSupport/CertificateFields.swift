internal import COpenSSL
internal import CATSProbeShims
#if canImport(Glibc)
internal import Glibc
#endif

// What the trust code and the test servers read from, or write into, one certificate, where
// OpenSSL hands back a temporary the reader must free (a decoded extension, a BIGNUM, a buffer
// OpenSSL allocated): each job here makes its temporary and frees it before it returns, so no
// code outside OpenSSLSupport frees an OpenSSL object (issue 39, item 7; OpenSSLOwnershipTests).

extension X509Certificate {
    /// The serial number in upper-case hex (BN_bn2hex), at most `limit` characters; "" when
    /// OpenSSL cannot read it.
    package func serialHex(limit: Int) -> String {
        guard let integer = X509_get_serialNumber(pointer), let bn = ASN1_INTEGER_to_BN(integer, nil) else { return "" }
        defer { BN_free(bn) }
        guard let hex = BN_bn2hex(bn) else { return "" }
        defer { CATSProbeShims_OPENSSL_free(hex) }
        return String(String(cString: hex).prefix(limit))
    }

    /// The DNS entries (as text, each at most `nameLimit` bytes) and IP entries (raw octets) of
    /// the subjectAltName, up to `limit` of each kind, read from every entry.
    package func subjectAltNames(limit: Int, nameLimit: Int) -> (dns: [String], ip: [[UInt8]]) {
        guard let raw = X509_get_ext_d2i(pointer, NID_subject_alt_name, nil, nil) else { return ([], []) }
        let names = OpaquePointer(raw)
        defer { CATSProbeShims_GENERAL_NAMES_free(names) }
        var dns: [String] = [], ip: [[UInt8]] = []
        for index in 0..<CATSProbeShims_sk_GENERAL_NAME_num(names) {
            if dns.count >= limit && ip.count >= limit { break }
            guard let entry = CATSProbeShims_sk_GENERAL_NAME_value(names, index) else { continue }
            switch entry.pointee.type {
            case GEN_DNS where dns.count < limit:
                dns.append(ASN1Text.string(UnsafePointer(entry.pointee.d.dNSName), limit: nameLimit))
            case GEN_IPADD where ip.count < limit:
                guard let octets = entry.pointee.d.iPAddress, let data = ASN1_STRING_get0_data(octets) else { continue }
                ip.append(Array(UnsafeBufferPointer(start: data, count: Int(ASN1_STRING_length(octets)))))
            default: continue
            }
        }
        return (dns, ip)
    }

    /// The extendedKeyUsage OIDs in dotted form, at most `limit`; nil when the certificate has
    /// none (or OpenSSL cannot decode it).
    package func extendedKeyUsageOIDs(limit: Int) -> [String]? {
        guard let raw = X509_get_ext_d2i(pointer, NID_ext_key_usage, nil, nil) else { return nil }
        let usages = OpaquePointer(raw)
        defer { CATSProbeShims_EXTENDED_KEY_USAGE_free_all(usages) }
        var oids: [String] = []
        for index in 0..<min(CATSProbeShims_sk_ASN1_OBJECT_num(usages), Int32(clamping: limit)) {
            guard let object = CATSProbeShims_sk_ASN1_OBJECT_value(usages, index) else { continue }
            oids.append(ASN1Text.objectIdentifier(object))
        }
        return oids
    }

    /// The caIssuers URIs of the authorityInfoAccess extension, in order (at most `limit`, each
    /// at most `nameLimit` bytes), and how many it names in all.
    package func caIssuerURIs(limit: Int, nameLimit: Int) -> (urls: [String], total: Int) {
        guard let raw = X509_get_ext_d2i(pointer, NID_info_access, nil, nil) else { return ([], 0) }
        let access = OpaquePointer(raw)
        defer { AUTHORITY_INFO_ACCESS_free(access) }
        var urls: [String] = []
        var total = 0
        for index in 0..<max(0, CATSProbeShims_sk_ACCESS_DESCRIPTION_num(access)) {
            guard let description = CATSProbeShims_sk_ACCESS_DESCRIPTION_value(access, index),
                  OBJ_obj2nid(description.pointee.method) == NID_ad_ca_issuers,
                  let location = description.pointee.location, location.pointee.type == GEN_URI else { continue }
            total += 1
            if urls.count < limit {
                urls.append(ASN1Text.string(UnsafePointer(location.pointee.d.uniformResourceIdentifier), limit: nameLimit))
            }
        }
        return (urls, total)
    }

    /// Calls `body` with the decoded embedded SCT list (a STACK_OF(SCT), freed when `body`
    /// returns); nil when the certificate has none.
    package func withEmbeddedSCTList<Result>(_ body: (OpaquePointer) throws -> Result) rethrows -> Result? {
        guard let raw = X509_get_ext_d2i(pointer, NID_ct_precert_scts, nil, nil) else { return nil }
        let list = OpaquePointer(raw)
        defer { CATSProbeShims_SCT_LIST_free_all(list) }
        return try body(list)
    }

    /// DER of the SubjectPublicKeyInfo; nil when OpenSSL cannot encode it.
    package var subjectPublicKeyInfoDER: [UInt8]? {
        guard let key = X509_get_X509_PUBKEY(pointer) else { return nil }
        return try? encoded("encoding a certificate's public key") { i2d_X509_PUBKEY(key, $0) }
    }

    /// The TBSCertificate re-encoded (i2d_re_X509_tbs) from a copy without the extension `nid`
    /// (the SCT list: what a log signed for an embedded SCT); nil when it cannot be made.
    package func tbsDER(removingExtension nid: Int32) -> [UInt8]? {
        guard let copy = X509_dup(pointer).map(X509Certificate.init(takingOwnership:)) else { return nil }
        let index = X509_get_ext_by_NID(copy.pointer, nid, -1)
        if index >= 0, let removed = X509_delete_ext(copy.pointer, index) { X509_EXTENSION_free(removed) }
        return try? copy.tbsDER
    }

    /// The TBSCertificate as it would be signed now (i2d_re_X509_tbs).
    package var tbsDER: [UInt8] {
        get throws(OpenSSLError) { try encoded("encoding the TBSCertificate") { i2d_re_X509_tbs(pointer, $0) } }
    }

    /// Where the extension with dotted OID `oid` sits in the certificate; nil when it has none
    /// or `oid` is not an OID.
    package func extensionIndex(oid: String) -> Int32? {
        guard let object = OBJ_txt2obj(oid, 1) else { return nil }
        defer { ASN1_OBJECT_free(object) }
        let location = X509_get_ext_by_OBJ(pointer, object, -1)
        return location >= 0 ? location : nil
    }

    // Building (the test servers' certificates).

    /// Sets notBefore and notAfter (seconds since 1970).
    package func setValidity(notBefore: Int, notAfter: Int) throws(OpenSSLError) {
        for (seconds, isStart) in [(notBefore, true), (notAfter, false)] {
            let time = try checkNotNull(.allocation, "making a time") { ASN1_TIME_set(nil, time_t(seconds)) }
            defer { ASN1_TIME_free(time) }
            try check(.configuration, "setting the validity") {
                isStart ? X509_set1_notBefore(pointer, time) : X509_set1_notAfter(pointer, time)
            }
        }
    }

    /// Adds each extension written in OpenSSL's configuration syntax (X509V3_EXT_nconf_nid:
    /// "critical,CA:TRUE", "DNS:a.test", "keyid:always"), in order, with `issuer` (nil: this
    /// certificate) as the issuer the values refer to.
    package func addExtensions(_ extensions: [(nid: Int32, value: String)], issuer: X509Certificate?) throws(OpenSSLError) {
        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuer?.pointer ?? pointer, pointer, nil, nil, 0)
        for (nid, value) in extensions {
            let ext = try checkNotNull(.configuration, "making extension \(nid) = \(value)") {
                X509V3_EXT_nconf_nid(nil, &context, nid, value)
            }
            defer { X509_EXTENSION_free(ext) }
            try check(.configuration, "adding extension \(nid)") { X509_add_ext(pointer, ext, -1) }
        }
    }

    /// Adds a non-critical extension `nid` whose extnValue OCTET STRING holds `value` (DER).
    package func addExtension(nid: Int32, value: [UInt8]) throws(OpenSSLError) {
        let octets = try checkNotNull(.allocation, "allocating an OCTET STRING") { ASN1_OCTET_STRING_new() }
        defer { ASN1_OCTET_STRING_free(octets) }
        try check(.configuration, "filling extension \(nid)") { ASN1_OCTET_STRING_set(octets, value, Int32(clamping: value.count)) }
        let ext = try checkNotNull(.configuration, "making extension \(nid)") { X509_EXTENSION_create_by_NID(nil, nid, 0, octets) }
        defer { X509_EXTENSION_free(ext) }
        try check(.configuration, "adding extension \(nid)") { X509_add_ext(pointer, ext, -1) }
    }
}

/// Text from ASN.1 values OpenSSL lends while their owner lives.
package enum ASN1Text {
    /// The bytes of an ASN1_STRING as UTF-8, at most `limit` of them.
    static func string(_ string: UnsafePointer<ASN1_STRING>?, limit: Int) -> String {
        guard let string, let data = ASN1_STRING_get0_data(string) else { return "" }
        let length = min(Int(ASN1_STRING_length(string)), limit)
        return String(decoding: UnsafeRawBufferPointer(start: data, count: max(0, length)), as: UTF8.self)
    }

    /// An ASN1_OBJECT's dotted form (OBJ_obj2txt, numeric), at most 127 bytes.
    static func objectIdentifier(_ object: OpaquePointer) -> String {
        var buffer = [CChar](repeating: 0, count: 128)
        let length = OBJ_obj2txt(&buffer, Int32(buffer.count), object, 1)
        guard length > 0 else { return "" }
        return String(decoding: buffer.prefix(min(Int(length), buffer.count - 1)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The DER encoding (tag, length, body) of the dotted OID `oid`; nil when it is not one.
    package static func objectIdentifierDER(_ oid: String) -> [UInt8]? {
        guard let object = OBJ_txt2obj(oid, 1) else { return nil }
        defer { ASN1_OBJECT_free(object) }
        return try? encoded("encoding an OID") { i2d_ASN1_OBJECT(object, $0) }
    }

    /// Whether `der` (an extension's value) decodes in full as the extension `nid` says
    /// (NID_ext_key_usage or NID_info_access): OpenSSL's decoder takes it and reads every byte.
    /// False for another `nid`.
    package static func decodesExactly(_ der: UnsafeBufferPointer<UInt8>, asExtension nid: Int32) -> Bool {
        guard let bytes = der.baseAddress else { return false }
        var cursor: UnsafePointer<UInt8>? = bytes
        switch nid {
        case NID_ext_key_usage:
            guard let value = d2i_EXTENDED_KEY_USAGE(nil, &cursor, der.count) else { return false }
            EXTENDED_KEY_USAGE_free(value)
        case NID_info_access:
            guard let value = d2i_AUTHORITY_INFO_ACCESS(nil, &cursor, der.count) else { return false }
            AUTHORITY_INFO_ACCESS_free(value)
        default:
            return false
        }
        return cursor == bytes + der.count
    }
}

/// Owns one X509_NAME decoded from DER (a certificate's subject, compared with the names chain
/// building asks a lookup for). Sendable: only read once decoded.
package final class X509Name: @unchecked Sendable {
    private let pointer: OpaquePointer

    /// The Name `der` encodes; nil when it is not one.
    package init?(der: UnsafeBufferPointer<UInt8>) {
        var cursor: UnsafePointer<UInt8>? = der.baseAddress
        guard let name = d2i_X509_NAME(nil, &cursor, der.count) else { return nil }
        pointer = name
    }

    deinit { X509_NAME_free(pointer) }

    /// Whether `name` (an X509_NAME OpenSSL lends a lookup) is this name (X509_NAME_cmp).
    package func matches(_ name: OpaquePointer) -> Bool { X509_NAME_cmp(pointer, name) == 0 }
}

extension EVPKey {
    /// Whether `signature` is this public key's SHA-256 signature over `message`.
    package func verifySHA256(signature: UnsafeBufferPointer<UInt8>, of message: [UInt8]) -> Bool {
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, pointer) == 1 else { return false }
        return EVP_DigestVerify(context, signature.baseAddress, signature.count, message, message.count) == 1
    }

    /// This private key's signature with SHA-256 over `message` (DER for ECDSA).
    package func signSHA256(_ message: [UInt8]) throws(OpenSSLError) -> [UInt8] {
        let context = try checkNotNull(.allocation, "allocating a digest context") { EVP_MD_CTX_new() }
        defer { EVP_MD_CTX_free(context) }
        try check(.cryptography, "starting a signature") { EVP_DigestSignInit(context, nil, EVP_sha256(), nil, pointer) }
        var length = 0
        try check(.cryptography, "sizing a signature") { EVP_DigestSign(context, nil, &length, message, message.count) }
        var signature = [UInt8](repeating: 0, count: length)
        try check(.cryptography, "making a signature") { EVP_DigestSign(context, &signature, &length, message, message.count) }
        return Array(signature.prefix(length))
    }

    /// What a generated key is: an algorithm name EVP_PKEY_CTX_new_from_name knows and its size.
    package enum Generation {
        case rsa(bits: Int), rsaPSS(bits: Int), ec(curve: String), ed25519
    }

    /// A fresh key pair. RSA sizes below OpenSSL's defaults are allowed.
    package static func generate(_ kind: Generation) throws(OpenSSLError) -> EVPKey {
        let algorithm = switch kind {
        case .rsa: "RSA"
        case .rsaPSS: "RSA-PSS"
        case .ec: "EC"
        case .ed25519: "ED25519"
        }
        let context = try checkNotNull(.allocation, "creating a \(algorithm) key context") {
            EVP_PKEY_CTX_new_from_name(nil, algorithm, nil)
        }
        defer { EVP_PKEY_CTX_free(context) }
        try check(.cryptography, "starting \(algorithm) key generation") { EVP_PKEY_keygen_init(context) }
        switch kind {
        case .rsa(let bits), .rsaPSS(let bits):
            try check(.configuration, "setting the RSA key size \(bits)") { EVP_PKEY_CTX_set_rsa_keygen_bits(context, Int32(clamping: bits)) }
        case .ec(let curve):
            try check(.configuration, "setting the curve \(curve)") { EVP_PKEY_CTX_set_group_name(context, curve) }
        case .ed25519:
            break
        }
        var key: OpaquePointer?
        try check(.cryptography, "generating a \(algorithm) key") { EVP_PKEY_keygen(context, &key) }
        guard let key else { throw OpenSSLError(.cryptography, "generating a \(algorithm) key") }
        return EVPKey(takingOwnership: key)
    }
}

extension OCSPBasicResponse {
    /// Adds a SingleResponse for `id`: good, or revoked (key compromise) at `thisUpdate`;
    /// times in seconds since 1970.
    package func addStatus(for id: borrowing OCSPCertificateID, revoked: Bool, thisUpdate: Int, nextUpdate: Int) throws(OpenSSLError) {
        let this = try checkNotNull(.allocation, "making an OCSP time") { ASN1_TIME_set(nil, time_t(thisUpdate)) }
        defer { ASN1_TIME_free(this) }
        let next = try checkNotNull(.allocation, "making an OCSP time") { ASN1_TIME_set(nil, time_t(nextUpdate)) }
        defer { ASN1_TIME_free(next) }
        _ = try checkNotNull(.configuration, "adding an OCSP status") {
            revoked
                ? OCSP_basic_add1_status(pointer, id.pointer, V_OCSP_CERTSTATUS_REVOKED, OCSP_REVOKED_STATUS_KEYCOMPROMISE, this, this, next)
                : OCSP_basic_add1_status(pointer, id.pointer, V_OCSP_CERTSTATUS_GOOD, 0, nil, this, next)
        }
    }
}

// Reading: what the trust code asks of a certificate, so none of it holds the X509*.
extension X509Certificate {
    /// Whether `other` owns a reference to the same X509 (a built chain's certificate and the
    /// served one it is).
    package func isSameObject(as other: X509Certificate) -> Bool { pointer == other.pointer }

    /// Whether this certificate could have issued `child` (X509_check_issued: names, key
    /// identifiers, key usage; not the signature).
    package func isIssuer(of child: X509Certificate) -> Bool { X509_check_issued(pointer, child.pointer) == X509_V_OK }

    /// Whether the two subjects are the same Name (X509_NAME_cmp).
    package func hasSameSubject(as other: X509Certificate) -> Bool {
        X509_NAME_cmp(X509_get_subject_name(pointer), X509_get_subject_name(other.pointer)) == 0
    }

    /// X509_check_host with `flags` (X509_CHECK_FLAG_*).
    package func matchesHost(_ host: String, flags: UInt32) -> Bool {
        X509_check_host(pointer, host, host.utf8.count, flags, nil) == 1
    }

    /// X509_check_ip_asc with `flags`.
    package func matchesIPAddress(_ address: String, flags: UInt32) -> Bool { X509_check_ip_asc(pointer, address, flags) == 1 }

    /// The subject Name in one-line RFC 2253 form, at most `limit` bytes; "" when unreadable.
    package func subjectName(limit: Int) -> String { Self.text(of: X509_get_subject_name(pointer), limit: limit) }

    /// The issuer Name, as `subjectName`.
    package func issuerName(limit: Int) -> String { Self.text(of: X509_get_issuer_name(pointer), limit: limit) }

    private static func text(of name: OpaquePointer?, limit: Int) -> String {
        guard let name, let bio = try? MemoryBIO() else { return "" }
        guard X509_NAME_print_ex(bio.pointer, name, 0, CATSProbeShims_XN_FLAG_RFC2253()) >= 0 else { return "" }
        return bio.text(limit: limit)
    }

    /// The first subject attribute `nid` (NID_organizationName, ...) as text (at most 255 bytes).
    package func subjectField(_ nid: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard X509_NAME_get_text_by_NID(X509_get_subject_name(pointer), nid, &buffer, Int32(buffer.count)) > 0 else { return nil }
        return String(cString: buffer)
    }

    /// How many attributes the subject Name has.
    package var subjectEntryCount: Int { Int(X509_NAME_entry_count(X509_get_subject_name(pointer))) }

    /// X509_get_version: 0 for v1, 2 for v3.
    package var version: Int { Int(X509_get_version(pointer)) }

    /// X509_get_extension_flags (EXFLAG_*).
    package var extensionFlags: UInt32 { X509_get_extension_flags(pointer) }

    /// X509_check_ca != 0: a CA by basicConstraints, key usage or v1 self-signing.
    package var isCA: Bool { X509_check_ca(pointer) != 0 }

    /// Subject and issuer are the same Name.
    package var isSelfIssued: Bool { X509_NAME_cmp(X509_get_subject_name(pointer), X509_get_issuer_name(pointer)) == 0 }

    /// notBefore and notAfter in seconds since 1970; nil when OpenSSL cannot read one.
    package var validity: (notBefore: Int?, notAfter: Int?) {
        (Self.seconds(X509_get0_notBefore(pointer)), Self.seconds(X509_get0_notAfter(pointer)))
    }

    /// An ASN1_TIME in seconds since 1970.
    static func seconds(_ time: UnsafePointer<ASN1_TIME>?) -> Int? {
        guard let time else { return nil }
        var parts = tm()
        guard ASN1_TIME_to_tm(time, &parts) == 1 else { return nil }
        return Int(timegm(&parts))
    }

    /// The public key's EVP_PKEY_* base type, size in bits and, for EC keys, its group name.
    package var publicKeyInfo: (baseID: Int32, bits: Int, curve: String?)? {
        guard let key = X509_get0_pubkey(pointer) else { return nil }
        let baseID = EVP_PKEY_get_base_id(key)
        var curve: String?
        if baseID == EVP_PKEY_EC {
            var buffer = [CChar](repeating: 0, count: 80)
            var length = 0
            if EVP_PKEY_get_utf8_string_param(key, "group", &buffer, buffer.count, &length) == 1 {
                curve = String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
        }
        return (baseID, Int(EVP_PKEY_get_bits(key)), curve)
    }

    /// The signature algorithm's long name (OBJ_nid2ln) and, when OpenSSL can tell, the NIDs of
    /// its digest and key type (X509_get_signature_info).
    package var signatureAlgorithm: (name: String, digestAndKey: (digestNID: Int32, keyNID: Int32)?) {
        let name = OBJ_nid2ln(X509_get_signature_nid(pointer)).map { String(cString: $0) } ?? "unknown"
        var digestNID: Int32 = 0, keyNID: Int32 = 0, securityBits: Int32 = 0
        var flags: UInt32 = 0
        guard X509_get_signature_info(pointer, &digestNID, &keyNID, &securityBits, &flags) == 1 else {
            OpenSSLErrors.clear()
            return (name, nil)
        }
        return (name, (digestNID, keyNID))
    }

    /// SHA-256 of the DER (X509_digest): the fingerprint; nil when OpenSSL cannot make it.
    package var sha256Digest: [UInt8]? {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(pointer, EVP_sha256(), &digest, &length) == 1, length == 32 else { return nil }
        return Array(digest.prefix(32))
    }

    /// The first extension `nid`: whether it is critical and its extnValue's bytes.
    package func extensionValue(nid: Int32) -> (critical: Bool, value: [UInt8])? {
        let location = X509_get_ext_by_NID(pointer, nid, -1)
        return location >= 0 ? extensionValue(at: location) : nil
    }

    /// The extension at `index` (from `extensionIndex(oid:)`), as `extensionValue(nid:)`.
    package func extensionValue(at index: Int32) -> (critical: Bool, value: [UInt8])? {
        guard let entry = X509_get_ext(pointer, index), let data = X509_EXTENSION_get_data(entry),
              let start = ASN1_STRING_get0_data(data) else { return nil }
        return (X509_EXTENSION_get_critical(entry) == 1, Array(UnsafeBufferPointer(start: start, count: Int(ASN1_STRING_length(data)))))
    }

    // Building.

    /// An empty certificate to build (X509_new).
    package static func empty() throws(OpenSSLError) -> X509Certificate {
        X509Certificate(takingOwnership: try checkNotNull(.allocation, "allocating a certificate") { X509_new() })
    }

    /// A certificate from DER that may carry OpenSSL's trust settings (a TRUSTED CERTIFICATE
    /// block, d2i_X509_AUX, as OpenSSL's file lookup reads one); nil when it is not one.
    package static func readingTrustSettings(der: UnsafeBufferPointer<UInt8>) -> X509Certificate? {
        var cursor: UnsafePointer<UInt8>? = der.baseAddress
        return d2i_X509_AUX(nil, &cursor, der.count).map(X509Certificate.init(takingOwnership:))
    }

    /// Version 3 and the serial number `serial`.
    package func setVersion3(serial: UInt64) throws(OpenSSLError) {
        try check(.configuration, "setting the version") { X509_set_version(pointer, 2) }
        try check(.configuration, "setting the serial") { ASN1_INTEGER_set_uint64(X509_get_serialNumber(pointer), serial) }
    }

    /// Adds UTF-8 attributes ("CN", "O", ...) to the subject, in order.
    package func addSubjectEntries(_ entries: [(field: String, value: String)]) throws(OpenSSLError) {
        let name = try checkNotNull(.configuration, "reading the subject name") { X509_get_subject_name(pointer) }
        for (field, value) in entries {
            let bytes = Array(value.utf8)
            try check(.configuration, "adding \(field) to a name") {
                X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8, bytes, Int32(clamping: bytes.count), -1, 0)
            }
        }
    }

    /// The issuer Name: `issuer`'s subject, or this certificate's own when nil.
    package func setIssuerName(from issuer: X509Certificate?) throws(OpenSSLError) {
        let name = try checkNotNull(.configuration, "reading the issuer's name") { X509_get_subject_name((issuer ?? self).pointer) }
        try check(.configuration, "setting the issuer name") { X509_set_issuer_name(pointer, name) }
    }

    package func setPublicKey(_ key: EVPKey) throws(OpenSSLError) {
        try check(.configuration, "setting the public key") { X509_set_pubkey(pointer, key.pointer) }
    }

    /// Signs with `key` and `digest` (an EVP_MD such as EVP_sha256(); nil for Ed25519).
    package func sign(with key: EVPKey, digest: OpaquePointer?, _ operation: String) throws(OpenSSLError) {
        try check(.cryptography, operation) { X509_sign(pointer, key.pointer, digest) }
    }
}

extension OCSPBasicResponse {
    /// Signs the response as `certificate` with `key` and `digest` (nil for Ed25519).
    package func sign(as certificate: X509Certificate, key: EVPKey, digest: OpaquePointer?) throws(OpenSSLError) {
        try check(.cryptography, "signing the OCSP response") { OCSP_basic_sign(pointer, certificate.pointer, key.pointer, digest, nil, 0) }
    }

    /// The status the response gives the certificate `id` names (OCSP_resp_find_status); nil
    /// when it names none.
    package func status(of id: borrowing OCSPCertificateID) -> OCSPSingleStatus? {
        var status: Int32 = -1, reason: Int32 = -1
        var revoked: UnsafeMutablePointer<ASN1_GENERALIZEDTIME>?, thisUpdate: UnsafeMutablePointer<ASN1_GENERALIZEDTIME>?,
            nextUpdate: UnsafeMutablePointer<ASN1_GENERALIZEDTIME>?
        guard OCSP_resp_find_status(pointer, id.pointer, &status, &reason, &revoked, &thisUpdate, &nextUpdate) == 1 else { return nil }
        return OCSPSingleStatus(status: status, thisUpdate: X509Certificate.seconds(UnsafePointer(thisUpdate)),
                                nextUpdate: X509Certificate.seconds(UnsafePointer(nextUpdate)))
    }

    /// The status of the first single response (of at most 64) whose certificate ID carries
    /// `leaf`'s serial number: how a leaf is found when its issuer was not served.
    package func status(forSerialOf leaf: X509Certificate) -> OCSPSingleStatus? {
        guard let single = singleResponse(forSerialOf: leaf) else { return nil }
        var reason: Int32 = -1
        var revoked: UnsafeMutablePointer<ASN1_GENERALIZEDTIME>?, thisUpdate: UnsafeMutablePointer<ASN1_GENERALIZEDTIME>?,
            nextUpdate: UnsafeMutablePointer<ASN1_GENERALIZEDTIME>?
        let status = OCSP_single_get0_status(single, &reason, &revoked, &thisUpdate, &nextUpdate)
        guard status >= 0 else { return nil }
        return OCSPSingleStatus(status: status, thisUpdate: X509Certificate.seconds(UnsafePointer(thisUpdate)),
                                nextUpdate: X509Certificate.seconds(UnsafePointer(nextUpdate)))
    }

    private func singleResponse(forSerialOf leaf: X509Certificate) -> OpaquePointer? {
        guard let serial = X509_get0_serialNumber(leaf.pointer) else { return nil }
        for index in 0..<min(OCSP_resp_count(pointer), 64) {
            guard let single = OCSP_resp_get0(pointer, index), let id = OCSP_SINGLERESP_get0_id(single) else { continue }
            var idSerial: UnsafeMutablePointer<ASN1_INTEGER>?
            guard OCSP_id_get0_info(nil, nil, nil, &idSerial, id) == 1, let idSerial else { continue }
            if ASN1_INTEGER_cmp(idSerial, serial) == 0 { return single }
        }
        return nil
    }
}

/// One certificate's status in an OCSP basic response: V_OCSP_CERTSTATUS_* and its update
/// times in seconds since 1970 (nil when absent or unreadable).
package struct OCSPSingleStatus {
    package var status: Int32
    package var thisUpdate: Int?
    package var nextUpdate: Int?
}

extension OCSPResponse {
    /// A successful response carrying `basic`.
    package init(successful basic: borrowing OCSPBasicResponse) throws(OpenSSLError) {
        self.init(takingOwnership: try checkNotNull(.allocation, "making the OCSP response") {
            OCSP_response_create(OCSP_RESPONSE_STATUS_SUCCESSFUL, basic.pointer)
        })
    }

    package var der: [UInt8] {
        get throws(OpenSSLError) { try encoded("encoding the OCSP response") { i2d_OCSP_RESPONSE(pointer, $0) } }
    }
}
