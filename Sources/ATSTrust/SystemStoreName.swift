#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
package import COpenSSL
import TextSupport
import TLSFacts

/// How outputs name the machine's OpenSSL store: where OpenSSL reads it (SSL_CERT_FILE and
/// SSL_CERT_DIR replace the defaults) and, on Debian, the ca-certificates package's version.
package enum SystemStoreName {
    package static let description: String = {
        let environment = ProcessInfo.processInfo.environment
        var places: [String] = []
        for (variable, fallback) in [(String(cString: X509_get_default_cert_file_env()), String(cString: X509_get_default_cert_file())),
                                     (String(cString: X509_get_default_cert_dir_env()), String(cString: X509_get_default_cert_dir()))] {
            if let value = environment[variable], !value.isEmpty {
                places.append("\(variable)=\(UntrustedText.escape(value, limit: 300))")
            } else {
                places.append(fallback)
            }
        }
        let overridden = places.contains { $0.contains("=") }
        let version = overridden ? nil : debianCACertificatesVersion()
        return "the system store (OpenSSL: \(places.joined(separator: ", "))"
            + (version.map { "; Debian ca-certificates \($0)" } ?? "") + ")"
    }()

    /// The installed ca-certificates version from dpkg's status file (bounded read), or nil.
    package static func debianCACertificatesVersion() -> String? {
        guard let bytes = try? BoundedFile.read("/var/lib/dpkg/status", limit: 32 * 1024 * 1024) else { return nil }
        let marker = Array("\nPackage: ca-certificates\n".utf8)
        guard let start = bytes.indices.dropLast(marker.count - 1).first(where: { bytes[$0..<$0 + marker.count].elementsEqual(marker) })
        else { return nil }
        let stanza = bytes[(start + marker.count)...].prefix(4096)
        var lines = String(decoding: stanza, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)[...]
        while let line = lines.popFirst(), !line.isEmpty {
            if line.hasPrefix("Version: ") { return String(line.dropFirst(9).prefix(64)) }
        }
        return nil
    }
}
