internal import COpenSSL

/// The OpenSSL the handshakes run on, as the library reports it at run time ("OpenSSL 3.0.17 1 Jul
/// 2025"): the run's metadata names it, since what a probe can offer depends on it.
package enum OpenSSLVersion {
    package static var text: String { String(cString: OpenSSL_version(OPENSSL_VERSION)) }
}
