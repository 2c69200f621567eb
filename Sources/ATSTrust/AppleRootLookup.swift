package import COpenSSL
package import OpenSSLSupport

/// Apple's roots as an X509_LOOKUP: OpenSSL asks for a subject while it builds a chain, and only
/// the roots with that subject are decoded (then kept in the store, so each is decoded once).
///
/// Decoding all 156 roots up front cost 195 million instructions on every run, 54% of a one-host
/// diagnostics run (callgrind; OpenSSL 3.0's d2i_X509 builds each public key through its decoder
/// framework), for the one or two roots a run ever needs. A subject alone is cheap to read: it is
/// taken from the certificate's DER by walking its first fields, without decoding the key.
package enum AppleRootLookup {
    /// Each root's subject, in `AppleRootStore.roots` order (nil when its DER could not be read).
    /// Written once, then only read (X509_NAME_cmp reads the canonical encoding d2i made).
    package static let subjects: [X509Name?] = AppleRootStore.roots.map { subjectName(of: $0.der) }

    nonisolated(unsafe) private static let method: OpaquePointer? = {
        guard let method = X509_LOOKUP_meth_new("atsprobe: Apple's root store") else { return nil }
        _ = X509_LOOKUP_meth_set_get_by_subject(method, { lookup, type, name, result in
            AppleRootLookup.find(lookup: lookup, type: type, name: name, result: result)
        })
        return method
    }()

    /// Adds the lookup to `store`; false when OpenSSL would not take it.
    package static func add(to store: X509Store) -> Bool {
        guard let method else { return false }
        return store.addLookup(method: method) != nil
    }

    /// OpenSSL's get_by_subject: 1 with `result` set to a root whose subject is `name`, else 0.
    private static func find(lookup: OpaquePointer?, type: X509_LOOKUP_TYPE, name: OpaquePointer?,
                             result: OpaquePointer?) -> Int32 {
        guard type == X509_LU_X509, let lookup, let name, let result else { return 0 }
        var found = false
        for (index, subject) in subjects.enumerated() {
            guard let subject, subject.matches(name), let cert = decode(AppleRootStore.roots[index].der) else { continue }
            // Kept in the store: the next search finds it in the store's cache.
            if X509Store.keep(cert, inStoreOf: lookup, result: result, setResult: !found) { found = true }
        }
        OpenSSLErrors.clear()
        return found ? 1 : 0
    }

    package static func decode(_ der: [UInt8]) -> X509Certificate? {
        try? X509Certificate(der: der)
    }

    /// The subject Name of a DER certificate: Certificate SEQUENCE { TBSCertificate SEQUENCE { [0] version OPTIONAL,
    /// serialNumber, signature, issuer, validity, subject, ... } ... } (RFC 5280 4.1).
    package static func subjectName(of der: [UInt8]) -> X509Name? {
        guard let certificate = element(der, at: 0), der[0] == 0x30,
              let tbs = element(der, at: certificate.content), der[certificate.content] == 0x30 else { return nil }
        var offset = tbs.content
        if der[offset] == 0xA0, let version = element(der, at: offset) { offset = version.end }
        for _ in 0..<4 {  // serialNumber, signature, issuer, validity
            guard let field = element(der, at: offset) else { return nil }
            offset = field.end
        }
        guard offset < der.count, der[offset] == 0x30, let subject = element(der, at: offset) else { return nil }
        return der[offset..<subject.end].withUnsafeBufferPointer { X509Name(der: $0) }
    }

    /// One DER element at `offset`: where its content starts and where it ends; nil if it runs
    /// past the bytes or uses a length form DER forbids.
    package static func element(_ der: [UInt8], at offset: Int) -> (content: Int, end: Int)? {
        guard offset + 2 <= der.count else { return nil }
        var index = offset + 1
        let first = Int(der[index])
        index += 1
        var length = first
        if first & 0x80 != 0 {
            let count = first & 0x7F
            guard (1...4).contains(count), index + count <= der.count else { return nil }
            length = 0
            for _ in 0..<count {
                length = length << 8 | Int(der[index])
                index += 1
            }
        }
        guard index + length <= der.count else { return nil }
        return (index, index + length)
    }
}
