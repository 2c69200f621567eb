import Foundation
import Testing
import COpenSSL
import CATSProbeShims
@testable import OpenSSLSupport

/// The owners free exactly what they own: a reference shared by two owners survives the first's
/// release, a stack handed over frees what it does not keep, and failures drain the error queue.
/// Frees are counted through OpenSSL's own hook (an ex_data free callback, run when the object's
/// last reference goes), so a missing or extra X509_free shows as a wrong count.
@Suite struct OpenSSLSupportTests {
    /// An ex_data index whose free callback adds one to the Int its data points at.
    static let freeCounter: Int32 = CRYPTO_get_ex_new_index(CRYPTO_EX_INDEX_X509, 0, nil, nil, nil) { _, data, _, _, _, _ in
        data?.assumingMemoryBound(to: Int.self).pointee += 1
    }

    /// Counts the frees of the certificates it watches; deallocated by the test that made it.
    final class FreeCount {
        let storage = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        init() { storage.initialize(to: 0) }
        deinit { storage.deallocate() }
        var value: Int { storage.pointee }

        func watch(_ certificate: X509Certificate) {
            #expect(X509_set_ex_data(certificate.pointer, OpenSSLSupportTests.freeCounter, storage) == 1)
        }
    }

    /// A self-signed Ed25519 certificate made with the C API (no test-server code here).
    static func makeCertificate(commonName: String = "owner test") throws -> X509Certificate {
        let context = try checkNotNull(.allocation, "key context") { EVP_PKEY_CTX_new_from_name(nil, "ED25519", nil) }
        defer { EVP_PKEY_CTX_free(context) }
        try check(.cryptography, "keygen init") { EVP_PKEY_keygen_init(context) }
        var raw: OpaquePointer?
        try check(.cryptography, "keygen") { EVP_PKEY_keygen(context, &raw) }
        let key = EVPKey(takingOwnership: try #require(raw))
        let certificate = X509Certificate(takingOwnership: try checkNotNull(.allocation, "X509_new") { X509_new() })
        try check(.configuration, "version") { X509_set_version(certificate.pointer, 2) }
        let name = try checkNotNull(.configuration, "subject") { X509_get_subject_name(certificate.pointer) }
        try check(.configuration, "common name") { X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, commonName, -1, -1, 0) }
        try check(.configuration, "issuer") { X509_set_issuer_name(certificate.pointer, name) }
        _ = X509_gmtime_adj(X509_getm_notBefore(certificate.pointer), 0)
        _ = X509_gmtime_adj(X509_getm_notAfter(certificate.pointer), 3600)
        try check(.configuration, "public key") { X509_set_pubkey(certificate.pointer, key.pointer) }
        try check(.cryptography, "sign") { X509_sign(certificate.pointer, key.pointer, nil) }
        return certificate
    }

    @Test func sharedCertificateOutlivesItsFirstOwner() throws {
        let frees = FreeCount()
        var first: X509Certificate? = try Self.makeCertificate()
        frees.watch(try #require(first))
        let der = try #require(first).der
        var second: X509Certificate? = X509Certificate(retaining: try #require(first).pointer)
        first = nil
        #expect(frees.value == 0)
        #expect(try #require(second).der == der)  // still whole after the first owner let go
        second = nil
        #expect(frees.value == 1)
    }

    @Test func retainedPointerIsANewReference() throws {
        let frees = FreeCount()
        var certificate: X509Certificate? = try Self.makeCertificate()
        frees.watch(try #require(certificate))
        let handedOver = try #require(certificate).retainedPointer()  // as SSL_CTX_add_extra_chain_cert takes it
        certificate = nil
        #expect(frees.value == 0)
        X509_free(handedOver)  // what the taker does
        #expect(frees.value == 1)
    }

    @Test func takenStackKeepsTheFirstAndFreesTheRest() throws {
        let frees = FreeCount()
        var owners: [X509Certificate] = try (0..<3).map { _ in try Self.makeCertificate() }
        owners.forEach(frees.watch)
        let stack = try #require(CATSProbeShims_sk_X509_new_null())
        for owner in owners { #expect(CATSProbeShims_sk_X509_push(stack, owner.retainedPointer()) > 0) }
        var kept: [X509Certificate]? = X509Certificate.takingOwnership(stack: stack, limit: 2)
        #expect(kept?.map(\.pointer) == owners.prefix(2).map(\.pointer))
        owners = []
        #expect(frees.value == 1)  // the third: the stack's reference went with the stack
        kept = nil
        #expect(frees.value == 3)
    }

    @Test func lentStackKeepsItsCertificatesAlive() throws {
        let frees = FreeCount()
        var certificate: X509Certificate? = try Self.makeCertificate()
        frees.watch(try #require(certificate))
        var stack: X509Stack? = try X509Stack([try #require(certificate)])
        certificate = nil
        #expect(frees.value == 0)
        #expect(CATSProbeShims_sk_X509_num(try #require(stack).pointer) == 1)
        stack = nil
        #expect(frees.value == 1)
    }

    @Test func pemAndDERRoundTrip() throws {
        let certificate = try Self.makeCertificate(commonName: "round trip")
        let pem = try certificate.pem
        #expect(pem.hasPrefix("-----BEGIN CERTIFICATE-----"))
        #expect(try X509Certificate(pem: pem).der == certificate.der)
        #expect(try X509Certificate(der: certificate.der).der == certificate.der)
        // Two in one buffer are read in order, then nil at the end.
        let other = try Self.makeCertificate(commonName: "second")
        let bio = try MemoryBIO(copying: Array((pem + other.pem).utf8))
        #expect(try X509Certificate.readPEM(from: bio)?.der == certificate.der)
        #expect(try X509Certificate.readPEM(from: bio)?.der == other.der)
        #expect(X509Certificate.readPEM(from: bio) == nil)
        OpenSSLErrors.clear()
    }

    @Test func keysRoundTrip() throws {
        let context = try checkNotNull(.allocation, "key context") { EVP_PKEY_CTX_new_from_name(nil, "EC", nil) }
        defer { EVP_PKEY_CTX_free(context) }
        try check(.cryptography, "keygen init") { EVP_PKEY_keygen_init(context) }
        try check(.configuration, "curve") { EVP_PKEY_CTX_set_group_name(context, "P-256") }
        var raw: OpaquePointer?
        try check(.cryptography, "keygen") { EVP_PKEY_keygen(context, &raw) }
        let key = EVPKey(takingOwnership: try #require(raw))
        #expect(key.baseID == EVP_PKEY_EC)
        #expect(key.bits == 256)
        let again = try EVPKey(privateKeyPEM: key.privateKeyPEM)
        #expect(try again.subjectPublicKeyInfoDER == key.subjectPublicKeyInfoDER)
        let publicOnly = try EVPKey(publicKeyDER: key.subjectPublicKeyInfoDER)
        #expect(try publicOnly.subjectPublicKeyInfoDER == key.subjectPublicKeyInfoDER)
        let shared = EVPKey(retaining: key.pointer)
        #expect(shared.pointer == key.pointer)
    }

    @Test func failuresDrainTheErrorQueue() throws {
        OpenSSLErrors.clear()
        do {
            _ = try X509Certificate(der: [0x30, 0x03, 0x02, 0x01])
            Issue.record("garbage read as a certificate")
        } catch {
            #expect(error.code == .decoding)
            #expect(error.operation == "reading a DER certificate")
            #expect(!error.entries.isEmpty)
            #expect(error.description.hasPrefix("reading a DER certificate: "))
        }
        #expect(ERR_peek_error() == 0)

        #expect(throws: OpenSSLError.self) { try EVPKey(privateKeyPEM: "not a key") }
        #expect(ERR_peek_error() == 0)
        #expect(throws: OpenSSLError.self) { try EVPKey(publicKeyDER: []) }
        #expect(ERR_peek_error() == 0)
    }

    @Test func drainKeepsAtMostLimitAndEmptiesTheQueue() {
        OpenSSLErrors.clear()
        for _ in 0..<3 { X509Certificate.garbageWithoutDraining() }
        #expect(ERR_peek_error() != 0)
        #expect(OpenSSLErrors.drain(limit: 2).count == 2)
        #expect(ERR_peek_error() == 0)
        #expect(OpenSSLErrors.drain().isEmpty)
    }

    @Test func checkHelpers() throws {
        // The closure forms start from a clean queue, so a stale error is not blamed on them.
        X509Certificate.garbageWithoutDraining()
        #expect(try check(.configuration, "succeeds") { Int32(1) } == 1)
        #expect(ERR_peek_error() == 0)
        #expect(throws: OpenSSLError.self) { try check(.configuration, "fails") { Int32(0) } }
        #expect(throws: OpenSSLError.self) { try checkNotNull(.allocation, "nil") { OpaquePointer?.none } }
        try check(true, .configuration, "true passes")
        do {
            try check(false, .configuration, "setting the groups")
            Issue.record("check(false) did not throw")
        } catch {
            #expect(error.code == .configuration)
            #expect(error.operation == "setting the groups")
        }
    }

    @Test func contextsForBothRoles() throws {
        let client = try SSLContext(.client)
        let server = try SSLContext(.server)
        #expect(client.withPointer { SSL_CTX_get_security_level($0) } >= 0)
        #expect(client.withPointer { $0 } != server.withPointer { $0 })
    }

    @Test func memoryBIOText() throws {
        let bio = try MemoryBIO()
        #expect(bio.text().isEmpty)
        _ = "hello, world".withCString { BIO_puts(bio.pointer, $0) }
        #expect(bio.text() == "hello, world")
        #expect(bio.text(limit: 5) == "hello")
    }

    @Test func digest() throws {
        #expect(try Digest.sha256(Array("abc".utf8)).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }
}

extension X509Certificate {
    /// Queues OpenSSL errors (a failed DER read) and leaves them there.
    static func garbageWithoutDraining() {
        let garbage: [UInt8] = [0x30, 0x03, 0x02, 0x01]
        garbage.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            if let leaked = d2i_X509(nil, &cursor, buffer.count) { X509_free(leaked) }
        }
    }
}

/// OpenSSL objects are freed by their owners in OpenSSLSupport only (issue 39, item 7): no other
/// source frees an SSL, SSL_CTX, X509, X509_STORE, X509_STORE_CTX, EVP_PKEY, BIO, PKCS7 or OCSP
/// object itself (TLSSession, CipherCatalog and the test server called SSL_free; TrustStore freed
/// its stores behind a `finished` flag; ATSTrust freed its store contexts, PKCS#7 messages and
/// OCSP responses with `defer`). And the SSL, SSL_CTX and X509_STORE owners lend their pointer to
/// no one: no source outside OpenSSLSupport makes an SSL, SSL_CTX or X509_STORE call.
@Suite struct OpenSSLOwnershipTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources")

    static func lines(of text: String, matching pattern: Regex<AnyRegexOutput>) -> [String] {
        text.split(separator: "\n").filter { line in
            !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") && line.contains(pattern)
        }.map(String.init)
    }

    /// Every call that frees an OpenSSL object or buffer: any `..._free(` or `..._free_all(`
    /// (X509_free, ASN1_OBJECT_free, CRYPTO_free, CATSProbeShims_SCT_LIST_free_all, ...), but
    /// not the setter of a lookup method's free callback (X509_LOOKUP_meth_set_free).
    static func frees(in text: String) -> [String] {
        lines(of: text, matching: try! Regex(#"\b(?!\w*_set_free\()\w+_free(_all)?\("#))
    }

    /// Calls that take an SSL*, SSL_CTX* or X509_STORE* (or an X509_STORE_CTX*, or reach a
    /// lookup's store): only the owners make them. SSL_CIPHER_* calls take a cipher, not an SSL.
    static func ownedCalls(in text: String) -> [String] {
        lines(of: text, matching: try! Regex(#"\b(CATSProbeShims_)?(SSL_CTX_|X509_STORE_CTX_|SSL_|X509_STORE_)[a-z0-9]\w*\(|\bX509_LOOKUP_get_store\("#))
    }

    /// The declarations of `owner` (a type in `text`) that lend its pointer: a package or public
    /// `pointer` or `withPointer`, or a package or public member whose body is `{ pointer }`.
    static func lending(_ owner: String, in text: String) -> [String] {
        guard let start = text.firstMatch(of: try! Regex(#"(struct|class) \#(owner)\b[^{]*\{"#)) else { return ["\(owner) not found"] }
        var depth = 1
        var end = start.range.upperBound
        while end < text.endIndex, depth > 0 {
            if text[end] == "{" { depth += 1 } else if text[end] == "}" { depth -= 1 }
            end = text.index(after: end)
        }
        let body = String(text[start.range.upperBound..<end])
        return lines(of: body, matching: try! Regex(#"^\s*(@\w+\s+)*(package|public)\b"#)).filter { line in
            let head = line.prefix { $0 != "{" }
            return head.contains(try! Regex(#"\bpointer\b|withPointer"#)) || line.contains(try! Regex(#"\{\s*(return\s+)?pointer\s*\}"#))
        }
    }

    static func sourceFiles() throws -> [(path: String, text: String)] {
        let files = try #require(FileManager.default.enumerator(at: Self.sources, includingPropertiesForKeys: nil))
        var found: [(String, String)] = []
        for case let url as URL in files where url.pathExtension == "swift" {
            found.append((url.path.replacingOccurrences(of: Self.sources.path, with: "Sources"), try String(contentsOf: url, encoding: .utf8)))
        }
        #expect(found.count > 100, "Sources/ not found at \(Self.sources.path)")
        return found
    }

    @Test func onlyTheOwnersFreeOpenSSLObjects() throws {
        var found: [String] = []
        for (path, text) in try Self.sourceFiles() where !path.hasPrefix("Sources/OpenSSLSupport/") {
            found += Self.frees(in: text).map { "\(path): \($0)" }
        }
        #expect(found.isEmpty, "OpenSSL objects freed outside their owners:\n\(found.joined(separator: "\n"))")
        #expect(Self.frees(in: "    deinit { SSL_free(ssl) }\n        X509_STORE_free(store)\n").count == 2)
        #expect(Self.frees(in: "        defer { X509_STORE_CTX_free(context) }\n defer { OCSP_BASICRESP_free(basic) }\n PKCS7_free(p7)\n").count == 3)
        #expect(Self.frees(in: "defer { ASN1_OBJECT_free(object) }\ndefer { CRYPTO_free(buffer, nil, 0) }\nCATSProbeShims_SCT_LIST_free_all(list)\nEVP_MD_CTX_free(c)\n").count == 4)
        #expect(Self.frees(in: "_ = X509_LOOKUP_meth_set_free(method) { lookup in\nlet freed = true\n").isEmpty)
    }

    @Test func noSSLOrStoreCallOutsideTheOwners() throws {
        var found: [String] = []
        for (path, text) in try Self.sourceFiles() where !path.hasPrefix("Sources/OpenSSLSupport/") {
            found += Self.ownedCalls(in: text).map { "\(path): \($0)" }
        }
        #expect(found.isEmpty, "SSL, SSL_CTX or X509_STORE calls outside OpenSSLSupport:\n\(found.joined(separator: "\n"))")
        #expect(Self.ownedCalls(in: "let n = SSL_read(ssl, p, 4)\n_ = CATSProbeShims_SSL_CTX_set1_groups_list(ctx, g)\nX509_STORE_add_cert(s, c)\n").count == 3)
        #expect(Self.ownedCalls(in: "let name = SSL_CIPHER_get_name(cipher)\nif code == SSL_ERROR_NONE {}\n").isEmpty)
    }

    @Test func theOwnersLendNoPointer() throws {
        let support = try Self.sourceFiles().filter { $0.path.hasPrefix("Sources/OpenSSLSupport/") }.map(\.text).joined(separator: "\n")
        for owner in ["SSLContext", "SSLObject", "X509Store", "X509Certificate", "EVPKey", "MemoryBIO", "X509Stack",
                      "X509StoreContext", "PKCS7Message", "OCSPResponse", "OCSPBasicResponse", "OCSPCertificateID", "X509Name"] {
            let lent = Self.lending(owner, in: support)
            #expect(lent.isEmpty, "\(owner) lends its pointer:\n\(lent.joined(separator: "\n"))")
        }
        // The scan finds a lent pointer (as the owners had it), and not a method that uses one.
        #expect(Self.lending("A", in: "final class A {\n    package let pointer: OpaquePointer\n}\n").count == 1)
        #expect(Self.lending("B", in: "struct B: ~Copyable {\n    package var ssl: OpaquePointer { pointer }\n    func withPointer() {}\n}\n").count == 1)
        #expect(Self.lending("C", in: "struct C {\n    private let pointer: OpaquePointer\n    package func read() -> Int32 { SSL_read(pointer) }\n}\n").isEmpty)
    }
}
