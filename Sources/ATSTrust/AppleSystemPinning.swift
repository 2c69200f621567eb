#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ATSPolicy
package import COpenSSL
package import OpenSSLSupport

/// Apple's system-wide pinning list: for the hosts it names (mostly Apple's own: *.icloud.com,
/// updates.cdn-apple.com, ...) trustd replaces the SSL policy by the list's rules, any one of
/// which must be met, before any app's NSPinnedDomains (SecTrustServer.c
/// SecPathBuilderAddPinningPolicies: each rule dictionary is another policy, "treat them as an
/// OR"; SecPinningDb.m queryForDomain: the host's first label against each labelRegex, case
/// insensitive, the rest equal to the suffix, one trailing dot removed). The data is built in
/// (AppleSystemPinningData.swift, scripts/update-apple-pinning), `version` names it.
///
/// Checked per rule: AnchorApple (the anchor is one of Apple's roots, SecAppleAnchor.c),
/// AnchorSHA256, ChainLength, the intermediate's marker extension, country and organization,
/// the leaf's marker extension (the production marker of CheckLeafMarkersProdAndQA: a device
/// is not a QA build), its subject organization and certificate policy. Not checked:
/// `Revocation` (trustd then asks OCSP, which atsprobe does not; a revoked staple fails anyway).
package enum AppleSystemPinning {
    struct Rule: Sendable {
        var anchorApple: Bool
        var anchorSHA256: [String]
        var chainLength: Int?
        var intermediateMarkerOID: String?
        var intermediateCountry: String?
        var intermediateOrganization: String?
        /// "OID" (the leaf has that extension) or "EXTENSION-OID=VALUE-OID" (that extension's
        /// value holds that OID); any one suffices.
        var leafMarkers: [String]
        var subjectOrganization: String?
        var certificatePolicy: String?
    }

    struct Entry: Sendable {
        var policyName: String
        var domains: [(suffix: String, labelRegex: String)]
        var rules: [Rule]
    }

    /// suffix -> (label pattern, entry index), built on first use.
    private static let bySuffix: [String: [(String, Int)]] = {
        var table: [String: [(String, Int)]] = [:]
        for (index, entry) in entries.enumerated() {
            for domain in entry.domains { table[domain.suffix, default: []].append((domain.labelRegex, index)) }
        }
        return table
    }()

    /// The list's policy for `host`, if it names it.
    static func entry(for host: String) -> Entry? {
        var name = host.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        guard let dot = name.firstIndex(of: ".") else { return nil }
        let label = String(name[..<dot])
        guard let candidates = bySuffix[String(name[name.index(after: dot)...])] else { return nil }
        for (pattern, index) in candidates {
            guard let regex = try? Regex(pattern).ignoresCase() else { continue }
            if (try? regex.firstMatch(in: label)) != nil { return entries[index] }
        }
        return nil
    }

    /// Why the path meets none of the rules Apple pins `host` to; nil when the list does not
    /// name the host or a rule is met. `path` is the chain as built, leaf first, anchor last.
    static func problem(host: String, path: [X509Certificate], anchorFingerprint: String) -> String? {
        guard let entry = entry(for: host), !path.isEmpty else { return nil }
        var reasons: [String] = []
        for rule in entry.rules {
            guard let failure = unmet(rule, path: path, anchorFingerprint: anchorFingerprint) else { return nil }
            reasons.append(failure)
        }
        return "Apple pins '\(host)' (its system pinning list, policy \(entry.policyName)) and the chain meets none of its \(entry.rules.count) rule(s): "
            + reasons.joined(separator: "; ")
    }

    private static func unmet(_ rule: Rule, path: [X509Certificate], anchorFingerprint: String) -> String? {
        let compact = anchorFingerprint.uppercased().filter { $0 != ":" }
        if rule.anchorApple && !AppleAnchors.contains(compact) { return "the anchor is not one of Apple's roots" }
        if !rule.anchorSHA256.isEmpty && !rule.anchorSHA256.contains(compact) { return "the anchor is none of the pinned roots" }
        if let length = rule.chainLength, path.count != length { return "the chain has \(path.count) certificates, not \(length)" }
        let intermediate = path.count > 1 ? path[1] : nil
        if let oid = rule.intermediateMarkerOID, !(intermediate.map { has(extension: oid, in: $0) } ?? false) {
            return "the intermediate lacks Apple's marker \(oid)"
        }
        if let country = rule.intermediateCountry, intermediate.flatMap({ field(NID_countryName, of: $0) }) != country {
            return "the intermediate's country is not \(country)"
        }
        if let organization = rule.intermediateOrganization, intermediate.flatMap({ field(NID_organizationName, of: $0) }) != organization {
            return "the intermediate's organization is not \(organization)"
        }
        let leaf = path[0]
        if !rule.leafMarkers.isEmpty && !rule.leafMarkers.contains(where: { marker(marker: $0, in: leaf) }) {
            return "the leaf lacks the marker \(rule.leafMarkers[0])"
        }
        if let organization = rule.subjectOrganization, field(NID_organizationName, of: leaf) != organization {
            return "the leaf's organization is not \(organization)"
        }
        if let policy = rule.certificatePolicy, !extensionValue(NID_certificate_policies, of: leaf, contains: policy) {
            return "the leaf lacks certificate policy \(policy)"
        }
        return nil
    }

    private static func marker(marker: String, in cert: X509Certificate) -> Bool {
        let parts = marker.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { return has(extension: marker, in: cert) }
        guard let location = cert.extensionIndex(oid: parts[0]) else { return false }
        return extensionValue(at: location, of: cert, contains: parts[1])
    }

    private static func has(extension oid: String, in cert: X509Certificate) -> Bool {
        cert.extensionIndex(oid: oid) != nil
    }

    private static func extensionValue(_ nid: Int32, of cert: X509Certificate, contains oid: String) -> Bool {
        contains(cert.extensionValue(nid: nid)?.value, oid: oid)
    }

    /// Whether the extension's DER value holds the DER encoding of `oid` (tag, length, body).
    private static func extensionValue(at location: Int32, of cert: X509Certificate, contains oid: String) -> Bool {
        contains(cert.extensionValue(at: location)?.value, oid: oid)
    }

    private static func contains(_ value: [UInt8]?, oid: String) -> Bool {
        guard let haystack = value, let needle = ASN1Text.objectIdentifierDER(oid), !needle.isEmpty else { return false }
        guard haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { haystack[$0..<$0 + needle.count].elementsEqual(needle) }
    }

    private static func field(_ nid: Int32, of cert: X509Certificate) -> String? {
        cert.subjectField(nid)
    }
}
