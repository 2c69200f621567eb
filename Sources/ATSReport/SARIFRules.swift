/// What code scanning shows of each rule atsprobe's SARIF names (GitHub, "SARIF support for
/// code scanning": `fullDescription`, `help` in Markdown, `helpUri`, `properties.tags` and
/// `properties.security-severity`, which sets an alert's severity: over 7.0 high, 4.0-6.9
/// medium, 0.1-3.9 low). One table for every command (plist lint, plist check, app, audit,
/// `report --diff`): `ReportSARIF.log` passes each rule through `described`, which keeps what
/// the command said and fills the rest by the rule's family.
///
/// The severities: a load ATS refuses under default ATS, or that needs an exception, weakens or
/// breaks the app's transport security (medium, 5.0); a key that weakens ATS more than any host
/// needs is medium too (4.0); lint findings follow their level; a target with no answer
/// (unreachable, timed out) is low (2.0): nothing was judged.
package enum SARIFRules {
    /// The key of `partialFingerprints` atsprobe writes (its own; GitHub adds
    /// primaryLocationLineHash itself where it can read the file).
    package static let fingerprintKey = "atsprobeFindingHash/v1"

    /// The project's documentation on the web, the one place it is configured: helpUri and
    /// informationUri are this base and a page (https, as GitHub's alert panel opens them), and
    /// absent while it is nil. Never a file:// address: a runner's or a reader's filesystem is
    /// not the alert viewer's (issue 42). Set it when atsprobe's docs are published.
    package static let documentationBase: String? = nil

    /// The page about every command (`driver.informationUri`), nil without `documentationBase`.
    package static var documentation: String? { doc("usage") }

    static func doc(_ page: String, _ anchor: String? = nil) -> String? {
        guard let base = documentationBase, base.hasPrefix("https://") else { return nil }
        return base + (base.hasSuffix("/") ? "" : "/") + "\(page).md" + (anchor.map { "#" + $0 } ?? "")
    }

    /// `rule` with every field code scanning reads: the command's own text kept, the rest by family.
    package static func described(_ rule: SARIFLog.Rule) -> SARIFLog.Rule {
        var rule = rule
        let family = self.family(rule)
        let short = rule.shortDescription?.text ?? family.full
        if rule.shortDescription == nil { rule.shortDescription = .init(text: short) }
        if rule.fullDescription == nil { rule.fullDescription = .init(text: "\(capitalized(short)). \(family.full)") }
        if rule.help == nil {
            rule.help = .init(text: "\(family.requirement) Fix: \(family.fix)",
                              markdown: "**\(family.title)** (`\(rule.id)`)\n\n**What ATS requires:** \(family.requirement)\n\n**The fix:** \(family.fix)\n\nSee " + (family.uri.map { "[\(family.docName)](\($0))" } ?? "`\(family.docName)` in atsprobe's documentation") + ".")
        }
        if rule.helpUri == nil { rule.helpUri = family.uri }
        if rule.properties == nil { rule.properties = .init(securitySeverity: family.severity, tags: ["security", "ats"] + family.tags) }
        return rule
    }

    struct Family {
        var title: String, full: String, requirement: String, fix: String, uri: String?, docName: String, severity: String, tags: [String]
    }

    static func family(_ rule: SARIFLog.Rule) -> Family {
        let id = rule.id
        if id.hasPrefix(ReportSARIF.loadRulePrefix) {
            let code = String(id.dropFirst(ReportSARIF.loadRulePrefix.count))
            if code.hasPrefix("unreachable.") {
                return Family(title: "The server could not be reached", full: "No TLS peer answered, so nothing could be judged.",
                              requirement: "A load needs a server that answers TLS on the URL's host and port.",
                              fix: "Check the name, the port and the firewall; run `atsprobe probe URL` for the connection's detail.",
                              uri: doc("rules"), docName: "docs/rules.md", severity: "2.0", tags: ["connectivity"])
            }
            let (requirement, fix, page) = loadAdvice(code)
            return Family(title: "ATS refuses this load (\(code))",
                          full: "App Transport Security refuses the load for this reason under the dictionary named; an app that loads it needs an exception, or fails.",
                          requirement: requirement, fix: fix, uri: doc(page), docName: "docs/\(page).md", severity: "5.0", tags: ["tls", "load"])
        }
        switch id {
        case ReportSARIF.timeoutRule:
            return Family(title: "No result within the deadline", full: "The target gave no result within the audit's --deadline; nothing was judged.",
                          requirement: "A result needs the server to answer within the deadline.",
                          fix: "Check that the server answers; raise --deadline for a slow one.",
                          uri: doc("audit"), docName: "docs/audit.md", severity: "2.0", tags: ["connectivity"])
        case "baseline/regressed", "baseline/new":
            let new = id == "baseline/new"
            return Family(title: new ? "A new target fails ATS" : "A target got worse since the baseline",
                          full: new ? "A target that was not in the baseline fails App Transport Security." : "A target's verdict, tests or needed exception got worse than in the baseline run.",
                          requirement: "Every target loads under default ATS, or under the exception the app already has.",
                          fix: "Restore the server's TLS (the result says which tests now fail and why), or accept the change by updating the baseline.",
                          uri: doc("reports", "baselines"), docName: "docs/reports.md", severity: "5.0", tags: ["regression"])
        case "unnecessary":
            return Family(title: "An exception no checked host needs", full: "A key or entry of NSAppTransportSecurity that none of the checked hosts needs: it weakens ATS for nothing.",
                          requirement: "Exceptions only where a host needs them (Apple: \"Preventing Insecure Network Connections\").",
                          fix: "Remove the key or entry (`atsprobe plist check` prints the tightened dictionary).",
                          uri: doc("plist"), docName: "docs/plist.md", severity: "4.0", tags: ["exception"])
        case "tooWide":
            return Family(title: "An exception wider than needed", full: "A key that weakens ATS more than the checked hosts need.",
                          requirement: "The narrowest exception a host needs.",
                          fix: "Replace it with the narrower key or value `atsprobe plist check` names.",
                          uri: doc("plist"), docName: "docs/plist.md", severity: "4.0", tags: ["exception"])
        case "insufficient":
            return Family(title: "The dictionary does not let a host load", full: "A checked host needs more than the app's dictionary allows: the load fails in the app.",
                          requirement: "Every host the app loads connects under the app's dictionary.",
                          fix: "Fix the server, or add the minimal exception `atsprobe plist check` prints.",
                          uri: doc("plist"), docName: "docs/plist.md", severity: "5.0", tags: ["exception"])
        default:
            // A lint rule (docs/lint.md): its own short description says what it finds.
            let level = rule.defaultConfiguration?.level ?? .warning
            return Family(title: "Info.plist lint: \(id)", full: "A finding of `atsprobe plist lint` in the NSAppTransportSecurity dictionary.",
                          requirement: "An NSAppTransportSecurity dictionary whose keys, types and values ATS reads as meant.",
                          fix: "Change the key as the finding says (`atsprobe plist lint --verbose` explains it).",
                          uri: doc("lint", id.lowercased()), docName: "docs/lint.md",
                          severity: level == .error ? "5.0" : level == .warning ? "3.0" : "1.0", tags: ["lint"])
        }
    }

    /// What ATS requires of a failure class and the server's fix (docs/rules.md; Apple's
    /// "Preventing Insecure Network Connections" and Security's SecPolicy checks).
    static func loadAdvice(_ code: String) -> (requirement: String, fix: String, page: String) {
        switch code {
        case "protocolTooOld", "handshakeFailed.noSharedProtocol":
            return ("TLS 1.2 or later (NSExceptionMinimumTLSVersion relaxes it).", "Enable TLS 1.2 and 1.3 on the server.", "rules")
        case "suiteNotAllowed", "notForwardSecret", "handshakeFailed.noSharedCipher":
            return ("An ECDHE suite with AES-GCM, AES-CBC or ChaCha20 (forward secrecy; NSExceptionRequiresForwardSecrecy relaxes it).",
                    "Offer ECDHE suites (e.g. ECDHE-ECDSA-AES128-GCM-SHA256, ECDHE-RSA-AES128-GCM-SHA256).", "rules")
        case "leafKeyTooSmall":
            return ("A leaf key of at least 2048 bits (RSA) or 256 bits (ECC).", "Issue the certificate with a larger key.", "certificates")
        case "leafSignatureHashWeak":
            return ("A leaf signed with SHA-256 or stronger.", "Reissue the certificate with a SHA-256 signature.", "certificates")
        case "pinMismatch":
            return ("A chain that holds one of NSPinnedDomains' identities.", "Serve a chain with a pinned key, or update the pins (`atsprobe pins`).", "certificates")
        case "cleartextBlocked":
            return ("https:// (NSAllowsArbitraryLoads or NSExceptionAllowsInsecureHTTPLoads relaxes it).", "Serve the URL over https.", "rules")
        default:
            if code.hasPrefix("trust.") || code.hasPrefix("certificateRule.") {
                return ("A chain the system trusts that meets Apple's certificate rules (validity, CT, key usage); no exception relaxes trust.",
                        "Serve a valid chain from a trusted CA, leaf first (`atsprobe cert HOST` says what is wrong).", "trust")
            }
            return ("A TLS handshake and HTTP answer under the offer ATS makes.", "Make the server complete the handshake ATS offers (`atsprobe diagnose URL --verbose`).", "rules")
        }
    }

    private static func capitalized(_ text: String) -> String {
        guard let first = text.first else { return text }
        return first.uppercased() + text.dropFirst()
    }
}
