internal import COpenSSL
internal import CATSProbeShims

/// Owns one X509_STORE (anchors and lookups a verification consults). It lends its pointer to no
/// one: filling it, finding an issuer in it and verifying against it are its methods (issue 39,
/// item 7). Sendable: filled once, then only read (OpenSSL locks its caches).
package final class X509Store: @unchecked Sendable {
    private let pointer: OpaquePointer

    package init() throws(OpenSSLError) {
        pointer = try checkNotNull(.allocation, "creating an X509 store") { X509_STORE_new() }
    }

    deinit { X509_STORE_free(pointer) }

    /// The X509_STORE, for one call made inside OpenSSLSupport.
    func withPointer<Result>(_ body: (OpaquePointer) throws -> Result) rethrows -> Result { try body(pointer) }

    /// Adds an anchor; the store takes its own reference (a duplicate is harmless).
    @discardableResult
    package func add(_ certificate: X509Certificate) -> Int32 { X509_STORE_add_cert(pointer, certificate.pointer) }

    /// Adds a hashed directory (X509_STORE_load_path), read when a chain asks for a subject.
    @discardableResult
    package func loadPath(_ path: String) -> Int32 { X509_STORE_load_path(pointer, path) }

    /// Adds a lookup of `method` (an X509_LOOKUP_METHOD the caller keeps for the process); the
    /// X509_LOOKUP the store made and owns, for its method data, or nil when refused.
    package func addLookup(method: OpaquePointer) -> OpaquePointer? { X509_STORE_add_lookup(pointer, method) }

    /// Adds `certificate` to the store a lookup belongs to, from inside the lookup's
    /// get_by_subject (so the next search finds it in the store's cache), and sets it as the
    /// lookup's `result` unless `setResult` is false. True when it was set.
    package static func keep(_ certificate: X509Certificate, inStoreOf lookup: OpaquePointer, result: OpaquePointer,
                             setResult: Bool) -> Bool {
        guard let store = X509_LOOKUP_get_store(lookup) else { return false }
        _ = X509_STORE_add_cert(store, certificate.pointer)
        return setResult && X509_OBJECT_set1_X509(result, certificate.pointer) == 1
    }

    /// The certificate the store finds as `certificate`'s issuer (by subject and signature), as
    /// chain building asks; nil when none.
    package func issuer(of certificate: X509Certificate) -> X509Certificate? {
        guard let context = X509StoreContext(store: self, certificate: certificate, untrusted: nil) else { return nil }
        return context.issuer(of: certificate)
    }

    /// One verification's outcome: every error the verifier reported (it is told to carry on),
    /// at most `errorLimit`, and the chain it built.
    package struct Verification {
        package var errors: [(code: Int32, depth: Int32)]
        package var chain: [X509Certificate]
    }

    /// Runs X509_verify_cert for `leaf` with `untrusted` as the other certificates at `time`
    /// (seconds since 1970),
    /// with a callback that records each error and carries on. `partialChain`: a chain may end
    /// at an anchor that is not self-signed (X509_V_FLAG_PARTIAL_CHAIN). Nil when OpenSSL could
    /// not set the verification up. The built chain keeps at most `chainLimit` certificates.
    package func verify(_ leaf: X509Certificate, untrusted: [X509Certificate], at time: Int, partialChain: Bool,
                        errorLimit: Int, chainLimit: Int) -> Verification? {
        guard let stack = try? X509Stack(untrusted),
              let context = X509StoreContext(store: self, certificate: leaf, untrusted: stack) else { return nil }
        return context.verify(at: time, partialChain: partialChain, errorLimit: errorLimit, chainLimit: chainLimit)
    }
}

/// Owns one X509_STORE_CTX, initialised for one certificate against one store, and keeps what it
/// points at (the store, the certificate, the untrusted stack) alive until it is freed.
package struct X509StoreContext: ~Copyable {
    private let pointer: OpaquePointer
    private let store: X509Store
    private let certificate: X509Certificate
    private let untrusted: X509Stack?

    /// Nil when OpenSSL could not make or initialise the context.
    package init?(store: X509Store, certificate: X509Certificate, untrusted: X509Stack?) {
        guard let context = X509_STORE_CTX_new() else { return nil }
        let initialised = store.withPointer { X509_STORE_CTX_init(context, $0, certificate.pointer, untrusted?.pointer) }
        guard initialised == 1 else {
            X509_STORE_CTX_free(context)
            return nil
        }
        pointer = context
        self.store = store
        self.certificate = certificate
        self.untrusted = untrusted
    }

    deinit { X509_STORE_CTX_free(pointer) }

    /// X509_STORE_CTX_get1_issuer: the issuer the store finds for `certificate`, owned.
    package func issuer(of certificate: X509Certificate) -> X509Certificate? {
        var found: OpaquePointer?
        guard X509_STORE_CTX_get1_issuer(&found, pointer, certificate.pointer) == 1, let found else { return nil }
        return X509Certificate(takingOwnership: found)
    }

    /// Verifies once (see `X509Store.verify`).
    package func verify(at time: Int, partialChain: Bool, errorLimit: Int, chainLimit: Int) -> X509Store.Verification {
        let parameters = X509_STORE_CTX_get0_param(pointer)
        X509_VERIFY_PARAM_set_time(parameters, time_t(time))
        _ = X509_VERIFY_PARAM_clear_flags(parameters, UInt(X509_V_FLAG_X509_STRICT))
        if partialChain { _ = X509_VERIFY_PARAM_set_flags(parameters, UInt(X509_V_FLAG_PARTIAL_CHAIN)) }

        let log = ErrorLog(limit: errorLimit)
        let unmanaged = Unmanaged.passRetained(log)
        defer { unmanaged.release() }
        _ = CATSProbeShims_X509_STORE_CTX_set_app_data(pointer, unmanaged.toOpaque())
        X509_STORE_CTX_set_verify_cb(pointer) { ok, context in
            guard ok == 0, let context, let raw = CATSProbeShims_X509_STORE_CTX_get_app_data(context) else { return ok }
            let log = Unmanaged<ErrorLog>.fromOpaque(raw).takeUnretainedValue()
            if log.errors.count < log.limit {
                log.errors.append((X509_STORE_CTX_get_error(context), X509_STORE_CTX_get_error_depth(context)))
            }
            return 1  // keep going: every problem is reported
        }
        _ = X509_verify_cert(pointer)
        OpenSSLErrors.clear()
        let chain = X509_STORE_CTX_get1_chain(pointer).map { X509Certificate.takingOwnership(stack: $0, limit: chainLimit) } ?? []
        return X509Store.Verification(errors: log.errors, chain: chain)
    }

    /// Collects verify errors from the C callback; reached through the context's app data.
    private final class ErrorLog {
        let limit: Int
        var errors: [(code: Int32, depth: Int32)] = []
        init(limit: Int) { self.limit = limit }
    }
}
