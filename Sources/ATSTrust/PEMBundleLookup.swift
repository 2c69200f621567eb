package import COpenSSL
package import OpenSSLSupport
import Synchronization
import TextSupport

/// A PEM bundle (the machine's store when SSL_CERT_FILE names one, as containers and Nix set it)
/// as an X509_LOOKUP that reads nothing until a chain asks for a subject, and then decodes only
/// the certificates with that subject (kept in the store, so each is decoded once).
///
/// X509_STORE_set_default_paths decodes the whole bundle before the first handshake: about 140
/// roots, 184 million instructions and 40-50 ms of every run (OpenSSL 3.0's d2i_X509 builds each
/// key through its decoder framework), for a store most runs never consult (it only says when
/// the machine's store and Apple's disagree). The first lookup reads the file and each block's
/// subject, which is cheap (AppleRootLookup.subjectName walks the DER to the subject).
package final class PEMBundleLookup: Sendable {
    let path: String

    /// One certificate block: its DER (decoded with d2i_X509_AUX when its subject is asked for,
    /// as OpenSSL's file lookup reads it, so TRUSTED CERTIFICATE blocks keep their trust
    /// settings) and its subject, nil when its DER could not be read.
    package struct Block: @unchecked Sendable {
        let der: [UInt8]
        let subject: X509Name?
    }

    /// Filled by the first lookup.
    private let blocks = Mutex<[Block]?>(nil)

    init(path: String) { self.path = path }

    /// Adds a lookup over the bundle at `path` to `store`; false when OpenSSL would not take it.
    /// The store keeps the lookup (and through it this bundle) until it is freed.
    @discardableResult
    package static func add(path: String, to store: X509Store) -> Bool {
        guard let method, let lookup = store.addLookup(method: method) else { return false }
        let bundle = Unmanaged.passRetained(PEMBundleLookup(path: path))
        guard X509_LOOKUP_set_method_data(lookup, bundle.toOpaque()) == 1 else {
            bundle.release()
            return false
        }
        return true
    }

    nonisolated(unsafe) private static let method: OpaquePointer? = {
        guard let method = X509_LOOKUP_meth_new("atsprobe: a PEM bundle read on demand") else { return nil }
        _ = X509_LOOKUP_meth_set_get_by_subject(method, { lookup, type, name, result in
            guard type == X509_LU_X509, let lookup, let name, let result,
                  let data = X509_LOOKUP_get_method_data(lookup) else { return 0 }
            return Unmanaged<PEMBundleLookup>.fromOpaque(data).takeUnretainedValue().find(lookup: lookup, name: name, result: result)
        })
        _ = X509_LOOKUP_meth_set_free(method) { lookup in
            guard let lookup, let data = X509_LOOKUP_get_method_data(lookup) else { return }
            Unmanaged<PEMBundleLookup>.fromOpaque(data).release()
        }
        return method
    }()

    /// OpenSSL's get_by_subject: 1 with `result` set to a certificate whose subject is `name`.
    /// Called without the store's lock, from any thread.
    private func find(lookup: OpaquePointer, name: OpaquePointer, result: OpaquePointer) -> Int32 {
        let matching = blocks.withLock { blocks -> [[UInt8]] in
            if blocks == nil { blocks = PEMBundleLookup.read(path: path) }
            return blocks!.filter { $0.subject?.matches(name) ?? false }.map(\.der)
        }
        var found = false
        for der in matching {
            guard let cert = der.withUnsafeBufferPointer(X509Certificate.readingTrustSettings(der:)) else { continue }
            // Kept in the store: the next search finds it in the store's cache.
            if X509Store.keep(cert, inStoreOf: lookup, result: result, setResult: !found) { found = true }
        }
        OpenSSLErrors.clear()
        return found ? 1 : 0
    }

    /// The bundle's certificate blocks (at most TrustStore.anchorLimit, from at most
    /// TrustStore.anchorBytesLimit bytes), read as OpenSSL reads PEM (`MemoryBIO.readPEMBlocks`);
    /// none when the file cannot be read, as OpenSSL's file lookup loads nothing then. CRLs and
    /// other blocks are skipped: verification here uses none.
    package static func read(path: String) -> [Block] {
        guard let bytes = try? BoundedFile.read(path, limit: TrustStore.anchorBytesLimit, allowPipes: false),
              let bio = try? MemoryBIO(copying: bytes) else { return [] }
        var blocks: [Block] = []
        bio.readPEMBlocks { label, der in
            if certificateLabels.contains(label) { blocks.append(Block(der: der, subject: AppleRootLookup.subjectName(of: der))) }
            return blocks.count < TrustStore.anchorLimit
        }
        OpenSSLErrors.clear()  // the last read ends with "no start line"
        return blocks
    }

    /// The labels OpenSSL's PEM_read_bio_X509_AUX reads as a certificate.
    static let certificateLabels: Set<String> = ["CERTIFICATE", "X509 CERTIFICATE", "TRUSTED CERTIFICATE"]
}
