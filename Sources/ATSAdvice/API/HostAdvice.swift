import ATSPolicy
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts

/// What one probed target needs, with each key traced to what the server did and the
/// server-side change that would make the key unnecessary.
public struct HostAdvice: Sendable, Hashable {
    /// The target as given (its URL), for messages.
    public var target: String
    /// The host: the NSExceptionDomains key an entry would use.
    public var host: String
    public var suggestion: ExceptionSuggestion
    /// One item per key of the suggested entry, with the observation that made it necessary.
    public var evidence: [KeyEvidence]
    /// For each key App Store review asks to justify, and for NSExceptionRequiresForwardSecrecy,
    /// the server change that removes the need.
    public var fixes: [ServerFix]

    /// `observations` are every handshake made with the host, under every offer. `failures` are
    /// the reasons the loads failed (the default connection's, then Allow All Loads'): when no
    /// exception helps, they say what to change on the server.
    public init(target: String, host: String, suggestion: ExceptionSuggestion, observations: [ProbeResult], ruleSet: RuleSet,
                failures: [FailureReason] = []) {
        self.target = target
        self.host = host
        self.suggestion = suggestion
        let seen = observations.compactMap { try? $0.get() }
        guard case .exception(_, let exception, let rationale) = suggestion else {
            evidence = []
            if case .impossible = suggestion {
                fixes = ServerFix.mergedPerDirective(HostAdvice.serverFixes(for: failures, host: host, seen: seen, ruleSet: ruleSet))
            } else {
                fixes = []
            }
            return
        }
        evidence = rationale.map { HostAdvice.precise($0, in: exception, seen: seen, ruleSet: ruleSet) }
        fixes = ServerFix.mergedPerDirective(HostAdvice.fixes(for: exception, seen: seen, ruleSet: ruleSet,
                                                              cleartextHost: target.lowercased().hasPrefix("http://") ? host : nil))
    }

    /// The entry, when one helps.
    public var exception: DomainException? {
        if case .exception(_, let exception, _) = suggestion { return exception }
        return nil
    }

    /// Why no entry helps, when none does.
    public var impossibleReason: String? {
        if case .impossible(let reason) = suggestion { return reason }
        return nil
    }

    /// The suites the server chose, in code-point order.
    private static func suites(_ seen: [Observation]) -> [CipherSuite] {
        Set(seen.map(\.cipherSuite)).sorted()
    }

    /// Puts the decisive fact first, then the advisor's comparison with the stronger setting.
    static func precise(_ item: KeyEvidence, in exception: DomainException, seen: [Observation], ruleSet: RuleSet) -> KeyEvidence {
        var facts: [Clause] = []
        switch item.key {
        case ATSKey.exceptionMinimumTLSVersion.name:
            if let best = seen.max(by: { $0.protocolVersion < $1.protocolVersion }) {
                facts.append(Clause(.serverHighestProtocol(best.protocolVersion),
                                    "server's highest protocol is \(best.protocolVersion) (\(best.cipherSuite.ianaName))"))
            }
        case ATSKey.exceptionRequiresForwardSecrecy.name:
            let chosen = suites(seen)
            if !chosen.isEmpty, chosen.allSatisfy({ !ruleSet.atsSuites.contains($0) }) {
                let names = chosen.map(\.ianaName).joined(separator: ", ")
                facts.append(Clause(.serverChose(chosen), "server chose \(names) under every offer it answered, never an ATS forward-secret suite (\(ruleSet.id))"))
            }
        case ATSKey.exceptionAllowsInsecureHTTPLoads.name:
            let allowed = Set(ruleSet.atsSuites + ruleSet.nonForwardSecretSuites)
            let outside = suites(seen).filter { !allowed.contains($0) }
            if !outside.isEmpty {
                facts.append(Clause(.serverChose(outside),
                                    "server chose \(outside.map(\.ianaName).joined(separator: ", ")), not an ATS suite (\(ruleSet.id)) even with forward secrecy off"))
            }
            if let leaf = seen.compactMap(\.leaf).first {
                if !leaf.signatureHash.isSHA256OrStronger { facts.append(Clause("leaf signed with \(leaf.signatureHash.rawValue)")) }
                if let needed = ruleSet.leafKeyShortfall(leaf.publicKey) {
                    facts.append(Clause("leaf key \(leaf.publicKey) is below \(needed) bits"))
                }
            }
        default:
            break
        }
        guard !facts.isEmpty else { return item }
        var precise = item
        precise.facts = facts
        // The advisor's own summary of the best protocol is now said first, with its suite.
        if item.key == ATSKey.exceptionMinimumTLSVersion.name { precise.bestProtocol = nil }
        // nscurl never tests insecure HTTP with PFS on; the rule itself is the evidence then.
        if item.key == ATSKey.exceptionRequiresForwardSecrecy.name, exception.allowsInsecureHTTPLoads,
           case .untested? = item.comparison, item.chosenSuites.isEmpty, item.bestProtocol == nil {
            precise.comparison = .rule("NSExceptionAllowsInsecureHTTPLoads alone still limits the offer to ATS suites")
        }
        // A clause of the comparison that a fact already states is not said again (KeyEvidence.observation).
        return precise
    }

    /// When no exception helps: one fix per failure class (certificate, chain, root, protocol,
    /// suites), each said once whatever the number of reasons behind it.
    static func serverFixes(for failures: [FailureReason], host: String, seen: [Observation], ruleSet: RuleSet) -> [ServerFix] {
        let leaf = seen.compactMap(\.leaf).first
        var certificate: [String] = []
        var chain: String?, root: String?
        var protocolTooOld = false, suitesRefused = false
        func note(_ text: String) { if !certificate.contains(text) { certificate.append(text) } }
        for reason in failures {
            switch reason.kind {
            case .trust(.expired): note("expired")
            case .trust(.notYetValid): note("not yet valid")
            case .trust(.nameMismatch):
                let names = (leaf.map { $0.dnsNames + $0.ipAddresses } ?? []).prefix(8)
                note(names.isEmpty ? "it names no host" : "it covers \(names.joined(separator: " and ")), not \(host)")
            case .trust(.incompleteChain), .trust(.invalidChain): chain = chain ?? reason.message
            case .trust(.untrustedRoot), .trust(.selfSigned): root = root ?? reason.message
            case .certificateRule(let rule):
                switch rule {
                case CertificateRuleID.subjectAltNameMissing: note("no subjectAltName")
                case CertificateRuleID.serverAuthEKU: note("no serverAuth extendedKeyUsage")
                case CertificateRuleID.validity398, CertificateRuleID.validity825:
                    note(leaf.map { "valid for \(CertificateLifetime($0).days) days" } ?? "valid too long")
                case CertificateRuleID.rsaKeySize:
                    let rules = ruleSet.certificateRules
                    let small = leaf.map { $0.publicKey.algorithm == .rsa
                        && !rules.keySizeCounting.meets(bits: $0.publicKey.bits, minimum: rules.minimumRSABits) } ?? false
                    note(small ? "leaf key \(leaf!.publicKey)" : "an RSA key under 2048 bits in the chain")
                case CertificateRuleID.ecKeySize:
                    // No exception relaxes it: Apple's SSL policy refuses EC keys under 256 bits outright.
                    let small = leaf.map { $0.publicKey.algorithm == .ec && $0.publicKey.bits < ECKeySizeRule.minimumBits } ?? false
                    note(small ? "leaf key \(leaf!.publicKey)" : "an EC key under 256 bits in the chain")
                case CertificateRuleID.sha1Signature: note("a SHA-1 signature")
                case CertificateRuleID.md5Signature: note("an MD5 signature")
                case CertificateRuleID.certificateTransparency: note("too few SCTs from Apple's CT logs")
                default: note(rule.rawValue)
                }
            case .leafKeyTooSmall: note(leaf.map { "leaf key \($0.publicKey)" } ?? "a leaf key too small")
            case .leafSignatureHashWeak: note(leaf.map { "signed with \($0.signatureHash.rawValue)" } ?? "a weak signature hash")
            case .protocolTooOld, .handshakeFailed(.noSharedProtocol): protocolTooOld = true
            case .suiteNotAllowed, .notForwardSecret, .handshakeFailed(.noSharedCipher): suitesRefused = true
            default: break
            }
        }
        var fixes: [ServerFix] = []
        if protocolTooOld {
            let best = seen.map(\.protocolVersion).max()
            fixes.append(.protocols(serverSpeaks: best.map { "\($0)" }, leaf: leaf?.publicKey))
        }
        if suitesRefused {
            fixes.append(.suites(serverSpeaks: suites(seen).map(\.ianaName), leaf: leaf?.publicKey))
        }
        if !certificate.isEmpty {
            // A chain that reached a user-installed root (and no public one): CT and the 398-day
            // limit do not apply there, so the advice must not ask for them.
            let anchors = Set(seen.compactMap(\.trust.anchor))
            fixes.append(.reissueCertificate(host: host, problems: certificate, userInstalledRoot: anchors == [.user]))
        }
        if let chain { fixes.append(.serveFullChain(problem: chain)) }
        if let root { fixes.append(.publiclyTrustedCertificate(problem: root)) }
        return fixes
    }

    /// `cleartextHost`: the host when the target is an http:// URL; its fix is to serve HTTPS.
    static func fixes(for exception: DomainException, seen: [Observation], ruleSet: RuleSet,
                      cleartextHost: String? = nil) -> [ServerFix] {
        let leaf = seen.compactMap(\.leaf).first
        var fixes: [ServerFix] = []
        if let cleartextHost, exception.allowsInsecureHTTPLoads {
            return [.serveHTTPS(key: ATSKey.exceptionAllowsInsecureHTTPLoads.name, host: cleartextHost)]
        }
        if exception.effectiveMinimumTLSVersion < .tls12 {
            fixes.append(.modernProtocols(key: ATSKey.exceptionMinimumTLSVersion.name, leaf: leaf?.publicKey))
        }
        let insecure = ATSKey.exceptionAllowsInsecureHTTPLoads.name
        if let leaf, exception.allowsInsecureHTTPLoads, !leaf.signatureHash.isSHA256OrStronger {
            fixes.append(.reissueLeaf(key: insecure, because: "the leaf is signed with \(leaf.signatureHash.rawValue)"))
        } else if let leaf, exception.allowsInsecureHTTPLoads, let needed = ruleSet.leafKeyShortfall(leaf.publicKey) {
            fixes.append(.reissueLeaf(key: insecure, because: "the leaf key \(leaf.publicKey) is below \(needed) bits"))
        } else if exception.allowsInsecureHTTPLoads {
            // The suites were the problem: one change removes both keys when PFS is off too.
            let keys = (exception.effectiveRequiresForwardSecrecy ? [] : [ATSKey.exceptionRequiresForwardSecrecy.name]) + [insecure]
            fixes.append(.forwardSecretSuites(keys: keys, leaf: leaf?.publicKey, because: "the server chose no suite that ATS accepts"))
            return fixes
        }
        if !exception.effectiveRequiresForwardSecrecy {
            fixes.append(.forwardSecretSuites(keys: [ATSKey.exceptionRequiresForwardSecrecy.name], leaf: leaf?.publicKey,
                                              because: "the server offers no ATS forward-secret suite"))
        }
        return fixes
    }
}
