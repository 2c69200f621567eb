/// Whether a Mach-O executable is FairPlay-encrypted: an App Store download is, and then its
/// text, string literals included, is ciphertext, so no host can be found in it. Read from
/// the load commands (`LC_ENCRYPTION_INFO` / `LC_ENCRYPTION_INFO_64`, cryptid != 0; Apple's
/// <mach-o/loader.h>), so the report can say why an executable yielded nothing.
package enum MachOEncryption {
    static let magic32: UInt32 = 0xFEED_FACE, magic64: UInt32 = 0xFEED_FACF
    static let fatMagic: UInt32 = 0xCAFE_BABE
    static let encryptionInfo: UInt32 = 0x21, encryptionInfo64: UInt32 = 0x2C

    /// true encrypted, false a Mach-O that is not, nil not a (thin, little-endian) Mach-O or
    /// its load commands are not all in `head`. A fat binary is judged by its first slice when
    /// that slice lies in `head`.
    package static func isEncrypted(_ head: ArraySlice<UInt8>) -> Bool? {
        let bytes = Array(head)
        guard bytes.count >= 8 else { return nil }
        if bytes.be32(0) == fatMagic {
            // Fat header and arch entries are big-endian: nfat_arch, then {cputype, cpusubtype, offset, size, align}.
            guard bytes.be32(4) >= 1, bytes.count >= 28 else { return nil }
            let offset = Int(bytes.be32(16))
            guard offset > 0, offset < bytes.count else { return nil }
            return isEncrypted(head[(head.startIndex + offset)...])
        }
        let magic = bytes.le32(0)
        guard magic == magic32 || magic == magic64 else { return nil }
        let headerSize = magic == magic64 ? 32 : 28
        guard bytes.count >= headerSize else { return nil }
        let commands = Int(bytes.le32(16)), commandsSize = Int(bytes.le32(20))
        guard commandsSize <= bytes.count - headerSize else { return nil }
        var cursor = headerSize
        for _ in 0..<commands {
            guard cursor + 8 <= headerSize + commandsSize else { return nil }
            let command = bytes.le32(cursor), size = Int(bytes.le32(cursor + 4))
            guard size >= 8 else { return nil }
            if command == encryptionInfo || command == encryptionInfo64 {
                guard cursor + 20 <= bytes.count else { return nil }
                return bytes.le32(cursor + 16) != 0
            }
            cursor += size
        }
        return false
    }
}

extension [UInt8] {
    func be32(_ at: Int) -> UInt32 {
        UInt32(self[at]) << 24 | UInt32(self[at + 1]) << 16 | UInt32(self[at + 2]) << 8 | UInt32(self[at + 3])
    }
}
