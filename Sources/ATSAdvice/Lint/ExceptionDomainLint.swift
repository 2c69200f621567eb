import ATSPolicy
import PropertyList

/// The keys of one NSExceptionDomains entry.
extension LintPass {
    mutating func lintExceptionDomain(_ entry: [String: PropertyListValue], domain name: String, at base: LintKeyPath, arbitraryLoadsOn: Bool) {
        let domain = quoted(name)
        var redundant: [LintFinding] = []
        var changesSomething = false
        var hasProblem = false

        for (key, value) in entry.sorted(by: { $0.key < $1.key }) {
            let path = base.appending(key)
            guard let atsKey = ATSKey.named(key, in: .exceptionDomain) else {
                reportUnknown(key, in: .exceptionDomain, at: path)
                hasProblem = true
                continue
            }
            if atsKey == .requiresCertificateTransparency {
                // KeyJudgement: the one reading explain, check, app and the tightener share. Lint does
                // not know the server's root, so it says what the key does for each kind.
                if booleanValue(value) == true {
                    add(.obsoleteKey, at: path, KeyJudgement.certificateTransparencyKeyFinding, fix: KeyJudgement.certificateTransparencyKeyFix)
                }
            } else if let note = atsKey.deprecation {
                let modern = Self.modernName(of: atsKey)
                add(.deprecatedKey, at: path, "\(key) is deprecated (\(note))", fix: modern.map { "rename it to \($0)" } ?? "remove the key")
            }
            guard checkType(value, expected: PropertyListValue.Kind(atsKey.valueType), subject: quoted(key), at: path) else {
                hasProblem = true
                continue
            }

            switch Self.modernName(of: atsKey) ?? atsKey.name {
            case ATSKey.includesSubdomains.name:
                if booleanValue(value) == false {
                    redundant.append(LintFinding(.redundantDefault, at: path, "NSIncludesSubdomains = false is the default", fix: "remove the key"))
                }
            case ATSKey.exceptionAllowsInsecureHTTPLoads.name:
                if booleanValue(value) == true {
                    changesSomething = true
                    add(.reviewJustification, at: path, ReviewJustification.insecureHTTP(key: key, domain: domain), fix: ReviewJustification.insecureHTTPFix)
                } else {
                    redundant.append(LintFinding(.redundantDefault, at: path, "\(key) = false is the default", fix: "remove the key"))
                }
            case ATSKey.exceptionRequiresForwardSecrecy.name:
                if booleanValue(value) == true {
                    redundant.append(LintFinding(.redundantDefault, at: path, "\(key) = true is the default", fix: "remove the key"))
                } else {
                    changesSomething = true
                }
            case ATSKey.exceptionMinimumTLSVersion.name:
                guard let version = value.stringValue else { continue }  // checkType saw a string
                guard let minor = TLSVersionSpelling.minor(of: version) else {
                    hasProblem = true
                    let intended = TLSVersionSpelling.intended(version)
                    add(.tlsVersionUnparsed, at: path,
                        "\(key) = \(quoted(version)) is not a value Apple parses (only TLSv1.0, TLSv1.1, TLSv1.2, TLSv1.3); it is ignored and the minimum stays TLSv1.2",
                        fix: intended.map { "write exactly \"\($0)\"" } ?? "use one of TLSv1.0, TLSv1.1, TLSv1.2, TLSv1.3", saysATSIgnoresIt: true)
                    continue
                }
                if minor < 2 {
                    changesSomething = true
                    add(.reviewJustification, at: path, ReviewJustification.oldTLS(key: key, version: version, domain: domain), fix: ReviewJustification.oldTLSFix)
                } else if version == TLSVersionSpelling.defaultValue {
                    redundant.append(LintFinding(.redundantDefault, at: path, "\(key) = TLSv1.2 is the default", fix: "remove the key"))
                } else {
                    changesSomething = true
                }
            case ATSKey.exceptionRequiresNIAPTLSPackageVersion.name:
                changesSomething = true
                if let version = value.stringValue { lintNIAP(version, key: key, at: path) }
            case ATSKey.requiresCertificateTransparency.name:
                // Still read by older releases when true; false is the default.
                if booleanValue(value) == true { changesSomething = true }
            default:
                changesSomething = true
            }
        }

        // An entry is never a no-op beside NSAllowsArbitraryLoads = true: it restores ATS for the domain.
        if !changesSomething && !hasProblem && !arbitraryLoadsOn {
            let why = entry.isEmpty ? "it is empty"
                : booleanValue(entry[ATSKey.includesSubdomains.name]) == true ? "apart from NSIncludesSubdomains, every value in it is the default"
                : "every value in it is the default"
            add(.noOpExceptionDomain, at: base, "the exception for \(domain) changes nothing: \(why)",
                fix: "remove the entry, or set the exception it was meant to grant")
        } else {
            add(redundant)
        }
    }

    /// The current name of a deprecated exception key; nil when the key is current.
    static func modernName(of key: ATSKey) -> String? {
        switch key {
        case .thirdPartyExceptionAllowsInsecureHTTPLoads, .temporaryExceptionAllowsInsecureHTTPLoads: ATSKey.exceptionAllowsInsecureHTTPLoads.name
        case .thirdPartyExceptionMinimumTLSVersion, .temporaryExceptionMinimumTLSVersion: ATSKey.exceptionMinimumTLSVersion.name
        case .thirdPartyExceptionRequiresForwardSecrecy, .temporaryExceptionRequiresForwardSecrecy: ATSKey.exceptionRequiresForwardSecrecy.name
        default: nil
        }
    }
}
