import ATSFiles
import ATSTrust
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport

/// `cert`'s inputs before the chain is judged: the chain file read (bounded, no FIFO or
/// device) and parsed, the `--host` with an empty label, the `--pin-*-spki` values checked.
package enum CertRun {
    /// The chain file (`-` standard input), bounded and parsed; each failure one line naming the file.
    package static func chain(path: String) throws -> CertificateChain {
        let name = "cert '\(UntrustedText.escape(path, limit: 400))'"
        let bytes: [UInt8]
        do {
            bytes = try BoundedFile.read(path, limit: ChainFile.byteLimit, dashIsStandardInput: true, allowPipes: false)
        } catch {
            switch error {
            case .tooLarge: throw InputError(.fileAccess, "\(name): larger than \(ChainFile.byteLimit) bytes, not a certificate chain")
            case .system(let code):
                throw InputError(.reading(outOfResources: BoundedFile.isResourceExhaustion(errno: code)), "\(name): \(BoundedFile.describe(errno: code))")
            case .notAFile: throw InputError(.fileAccess, "\(name): \(error.reason)")
            }
        }
        do throws(CertificateChainError) {
            return try CertificateChain(bytes: bytes)
        } catch {
            throw InputError(.badContents, "\(name): \(error.reason)")
        }
    }

    /// A host with an empty label but otherwise a DNS name's characters, lower-cased; nil otherwise.
    package static func emptyLabelName(_ text: String) -> String? {
        guard !text.isEmpty, text.utf8.count <= 253, text.contains("."),
              text.hasPrefix(".") || text.contains(".."),
              text.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value < 0x7F && $0 != "/" && $0 != ":" }),
              text.contains(where: { $0 != "." }) else { return nil }
        return text.lowercased()
    }

    /// base64 of a SHA-256 digest (44 characters, 32 bytes).
    package static func isSPKIPin(_ text: String) -> Bool {
        guard text.utf8.count == 44, let bytes = Data(base64Encoded: text) else { return false }
        return bytes.count == 32
    }
}
