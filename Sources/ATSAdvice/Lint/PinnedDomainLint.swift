import ATSPolicy
import PropertyList
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One NSPinnedDomains entry: at least one identity array, each an array of dictionaries
/// holding the base64 SHA-256 of a SubjectPublicKeyInfo (32 bytes once decoded).
extension LintPass {
    mutating func lintPinnedDomain(_ entry: [String: PropertyListValue], domain name: String, at base: LintKeyPath) {
        for (key, value) in entry.sorted(by: { $0.key < $1.key }) {
            let path = base.appending(key)
            guard let atsKey = ATSKey.named(key, in: .pinnedDomain) else {
                reportUnknown(key, in: .pinnedDomain, at: path)
                continue
            }
            // SecPolicy.c parseNSPinnedDomains: NSIncludesSubdomains counts only as <true/>; an identity
            // key that is present pins the domain whatever its value.
            let effect: String? = switch atsKey {
            case .pinnedIncludesSubdomains: "Apple's pin lookup counts only <true/>, so subdomains are not pinned by this entry"
            case .pinnedCAIdentities, .pinnedLeafIdentities: "the key still pins the domain, to no identity: every load to it fails pinning"
            default: nil
            }
            guard checkType(value, expected: PropertyListValue.Kind(atsKey.valueType), subject: quoted(key), at: path, effect: effect) else { continue }
            switch (atsKey, value) {
            case (.pinnedCAIdentities, .array(let identities)), (.pinnedLeafIdentities, .array(let identities)):
                lintIdentities(identities, key: key, at: path)
            case (.pinnedIncludesSubdomains, _):
                if booleanValue(value) == false {
                    add(.redundantDefault, at: path, "NSIncludesSubdomains = false is the default", fix: "remove the key")
                }
            default:
                break
            }
        }
        let identityKeys = [ATSKey.pinnedCAIdentities.name, ATSKey.pinnedLeafIdentities.name]
        if !identityKeys.contains(where: { entry[$0] != nil }) {
            add(.pinMissingIdentities, at: base,
                "the pinned domain \(quoted(name)) has neither NSPinnedCAIdentities nor NSPinnedLeafIdentities, so it pins nothing",
                fix: "add NSPinnedCAIdentities or NSPinnedLeafIdentities with SPKI-SHA256-BASE64 values (see `atsprobe pins`)")
        }
    }

    private mutating func lintIdentities(_ identities: [PropertyListValue], key: String, at path: LintKeyPath) {
        // An empty or unreadable array is not an absent key: it pins the domain to nothing, and
        // every load fails (SecPolicy.c parseNSPinnedDomains, SecPolicyServer.c SecPolicyCheck*SPKISHA256).
        if identities.isEmpty {
            add(.pinEmptyIdentities, at: path, "\(key) is an empty array: no certificate can match it, so every load to the domain fails pinning",
                fix: "add at least one { SPKI-SHA256-BASE64 = ... } dictionary, or remove the key")
            return
        }
        let readable = identities.filter { $0[ATSKey.spkiSHA256Base64]?.stringValue.flatMap(PinSet.readableIdentity) != nil }
        if readable.isEmpty {
            add(.pinEmptyIdentities, at: path,
                "none of the \(identities.count) identities in \(key) is readable (a dictionary with a base64 SPKI-SHA256-BASE64 string): no certificate can match it, so every load to the domain fails pinning",
                fix: "fix the identities below, or remove the key")
        }
        for (index, element) in identities.enumerated() {
            let elementPath = path.appending(index: index)
            guard checkType(element, expected: .dictionary, subject: "each element of \(key)", at: elementPath),
                  let identity = element.dictionaryValue else { continue }
            lintIdentity(identity, at: elementPath)
        }
    }

    private mutating func lintIdentity(_ identity: [String: PropertyListValue], at path: LintKeyPath) {
        let spkiKey = ATSKey.spkiSHA256Base64
        for key in identity.keys.sorted() where key != spkiKey {
            let near = KeySuggestion.nearest(to: key, among: [spkiKey])
            add(.unknownKey, at: path.appending(key),
                "unknown key \(quoted(key)) in a pin identity\(near.map { ": did you mean \($0)?" } ?? ";") ATS ignores it",
                fix: near.map { "rename it to \($0)" } ?? "remove it; an identity holds only \(spkiKey)", saysATSIgnoresIt: true)
        }
        guard let value = identity[spkiKey] else {
            add(.pinMissingSPKI, at: path, "this identity has no \(spkiKey) value, so it matches no certificate",
                fix: "add \(spkiKey) with the base64 SHA-256 of the certificate's SubjectPublicKeyInfo")
            return
        }
        let valuePath = path.appending(spkiKey)
        guard checkType(value, expected: .string, subject: spkiKey, at: valuePath), let text = value.stringValue else { return }
        let recipe = "openssl x509 -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | openssl enc -base64"
        guard let digest = Data(base64Encoded: text) else {
            add(.pinBadBase64, at: valuePath, "\(spkiKey) = \(quoted(text)) is not valid base64", fix: Self.hexHint(text) ?? "compute it with: \(recipe)")
            return
        }
        if digest.count != 32 {
            add(.pinDigestLength, at: valuePath,
                "\(spkiKey) decodes to \(digest.count) bytes; a SHA-256 digest is 32 bytes (44 base64 characters)",
                fix: Self.hexHint(text) ?? "compute it with: \(recipe)")
        }
    }

    /// A pin written in hex (64 digits) is a common slip: say how to convert it.
    private static func hexHint(_ text: String) -> String? {
        guard text.count == 64, text.allSatisfy(\.isHexDigit) else { return nil }
        return "this looks like hex; convert it with: echo <hex> | xxd -r -p | base64"
    }
}
