import ATSReport
import ATSPolicy
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport
import TLSFacts

/// The person-readable rendering of one handshake. Every string from the network is escaped.
package enum ProbeText {
    /// The document `probe --json` writes (ATSContract's ProbeReport): the handshake or its
    /// failure, Apple's rules and the CT verdict, judged once for text and JSON alike.
    package static func render(_ report: ProbeReport, logs: CTLogList = .apple, palette: Palette = Palette(enabled: false)) -> String {
        var out = "atsprobe probe \(report.target.url)\n"
        if let failure = report.failure {
            out += "\(palette.fail("Handshake failed")): \(describe(failure))\n"
        } else if let o = report.observation {
            out += "Connected to \(o.peerAddress) port \(o.port)"
            out += o.serverName.map { " (SNI \(esc($0)))" } ?? " (no SNI)"
            out += "; connect \(o.connectMilliseconds.fixed(1)) ms, handshake \(o.handshakeMilliseconds.fixed(1)) ms\n\n"
            var rows: [(String, String)] = [
                ("Protocol", o.protocolVersion.description),
                ("Cipher suite", "\(o.cipherSuite.ianaName) (\(o.cipherSuite.codePoint), OpenSSL \(esc(o.openSSLCipherName)))"),
                ("Forward secrecy", o.cipherSuite.isForwardSecret ? "yes" : "no"),
                ("Key exchange", o.keyExchangeGroup.map(esc) ?? "static RSA (none)"),
                ("ALPN", o.alpn.map(esc) ?? "none"),
            ]
            if let leaf = o.leaf {
                rows.append(("Leaf key", leaf.publicKey.description))
                rows.append(("Leaf signature", "\(esc(leaf.signatureAlgorithm)) (hash \(leaf.signatureHash.rawValue))"))
            }
            rows.append(("Trust", o.trust.isTrusted ? palette.pass(trustLine(o.trust)) : palette.fail(trustLine(o.trust))))
            rows.append(("Trust store", storeName(o.trust)))
            out += table(rows)
            out += problemLines(o.trust)
            out += trustDetails(o.trust)
            if let rules = report.appleRules { out += appleRules(rules) }
            out += "\nChain as served (\(o.chain.count) certificate\(o.chain.count == 1 ? "" : "s"))\n"
            for (index, cert) in o.chain.enumerated() { out += certificate(cert, index: index) }
            out += "\nSigned certificate timestamps: "
            let scts = (o.chain.first?.embeddedSCTs ?? []) + o.deliveredSCTs
            if scts.isEmpty { out += "none\n" } else {
                out += "\(scts.count)\n"
                for sct in scts {
                    let known = logs[sct.logID].map { " (\($0.name), \($0.state.rawValue))" } ?? " (not in the log list)"
                    out += "  - \(sct.source.rawValue): log \(esc(sct.logID))\(known) at \(iso(sct.timestamp)), signature \(signatureText(sct.signature))\n"
                }
            }
            if let ct = report.certificateTransparency { out += certificateTransparency(ct) }
            out += "OCSP staple: "
            if let staple = o.ocspStaple {
                out += "\(esc(staple.responseStatus))"
                if let status = staple.certificateStatus { out += ", certificate \(esc(status))" }
                if let this = staple.thisUpdate { out += ", this update \(iso(this))" }
                if let next = staple.nextUpdate { out += ", next update \(iso(next))" }
                out += "\n"
            } else { out += "none\n" }
        }
        return out
    }

    /// Apple's certificate rules (ats-reference 2A), judged at the time trust was judged (--at or now).
    package static func appleRules(_ rules: ProbeReport.AppleRules) -> String {
        guard !rules.violations.isEmpty else { return "Apple certificate rules: met (as of \(iso(rules.evaluatedAt)))\n" }
        var out = "Apple certificate rules: \(rules.violations.count) broken (as of \(iso(rules.evaluatedAt)))\n"
        for violation in rules.violations { out += "  - \(esc(violation.detail))\n" }
        return out
    }

    /// Apple's CT verdict with the counts behind it. No app dictionary here, so
    /// NSRequiresCertificateTransparency is not set: CT applies to public (system) roots only.
    package static func certificateTransparency(_ ct: CTPolicyResult) -> String {
        // A verdict of notRequired has a reason that starts "not required: ...".
        let verdict = switch ct.verdict {
        case .notRequired: ""
        case .compliant: "compliant, "
        case .nonCompliant: "NOT compliant, "
        }
        var out = "Certificate Transparency: \(verdict)\(esc(ct.reason))\n"
        out += "  SCTs: \(ct.embeddedSCTs) embedded, \(ct.tlsExtensionSCTs) TLS extension, \(ct.ocspStapleSCTs) OCSP staple"
        if let needed = ct.embeddedRequired, let days = ct.lifetimeDays {
            out += "; \(needed) embedded needed for \(days) days"
        }
        return out + "\n"
    }

    package static func describe(_ failure: ProbeFailure) -> String {
        let base: String
        switch failure.kind {
        case .nameNotResolved: base = "name not resolved"
        case .nameResolutionTimeout: base = "name not resolved in time"
        case .connectionRefused: base = "connection refused"
        case .networkUnreachable: base = "network unreachable"
        case .connectTimeout: base = "connect timed out"
        case .handshakeTimeout: base = "handshake timed out (the server accepted but did not answer)"
        case .notTLS: base = "the server does not speak TLS on this port"
        case .tlsAlert: base = "the server sent a TLS alert"
        case .noSharedProtocol: base = "no protocol version in common"
        case .noSharedCipher: base = "no cipher suite in common"
        case .closedDuringHandshake: base = "connection closed during the handshake"
        case .resetDuringHandshake: base = "connection reset during the handshake"
        case .clientRejected: base = "the client refused the server's choice"
        case .cancelled: base = "stopped before the handshake ended"
        case .protocolViolation: base = "the server broke the TLS protocol"
        case .localResources: base = "this machine ran out of resources (not the server's fault)"
        case .other: base = "handshake failed"
        }
        var text = base
        if let alert = failure.alert { text += " (alert \(alert.name), \(alert.code))" }
        if !failure.detail.isEmpty { text += ": \(esc(failure.detail))" }
        return text
    }

    /// The other store's opinion, every caIssuers fetch, and the chain as built when it differs
    /// from the one served.
    package static func trustDetails(_ trust: TrustEvaluation) -> String {
        var out = ""
        if let other = trust.otherStore { out += "  Other store: \(esc(other.detail))\n" }
        for fetch in trust.fetchedIssuers ?? [] {
            let what = fetch.failure.map { "failed: \(esc($0))" }
                ?? "got " + fetch.certificates.map { "'\(esc($0.subject))'" }.joined(separator: ", ")
            out += "  Fetched issuer of '\(esc(fetch.forSubject))' from \(esc(fetch.url)): \(what)\n"
        }
        if let warning = TrustAdvice.missingIntermediateWarning(trust) { out += "  Warning: \(esc(warning))\n" }
        if let path = trust.path, path.count > 1 {
            out += "  Chain as built: " + path.map { "'\(esc($0.subject))'" }.joined(separator: " <- ") + "\n"
        }
        return out
    }

    /// The trust store a chain was judged against. `probe` and `pins` show a trust evaluation with
    /// `trustLine`, this and `problemLines`.
    package static func storeName(_ trust: TrustEvaluation) -> String {
        trust.store.map(esc) ?? "none (only --ca-file/--ca-dir roots)"
    }

    /// One line per trust problem, indented under the verdict.
    package static func problemLines(_ trust: TrustEvaluation) -> String {
        trust.problems.map { "  - \($0.kind.rawValue): \(esc($0.detail))\n" }.joined()
    }

    package static func trustLine(_ trust: TrustEvaluation) -> String {
        if trust.isTrusted {
            switch trust.anchor {
            case .user: return "trusted (anchor: user-installed root from --ca-file/--ca-dir)"
            case .app: return "trusted (anchor: set by the app)"
            case .system: return "trusted (anchor: \(trust.store.map(esc) ?? "system trust store"))"
            case nil: return "trusted"
            }
        }
        return "NOT trusted (\(trust.problems.count) problem\(trust.problems.count == 1 ? "" : "s"))"
    }

    package static func certificate(_ c: CertificateFacts, index: Int) -> String {
        var rows: [(String, String)] = [
            ("subject", esc(c.subject)),
            ("issuer", esc(c.issuer)),
        ]
        let sans = c.dnsNames.map { "DNS:" + esc($0) } + c.ipAddresses.map { "IP:" + esc($0) }
        rows.append(("SANs", sans.isEmpty ? "none" : sans.joined(separator: ", ")))
        rows.append(("valid", "\(iso(c.notBefore)) to \(iso(c.notAfter))"))
        rows.append(("key", c.publicKey.description))
        rows.append(("signature", "\(esc(c.signatureAlgorithm)) (hash \(c.signatureHash.rawValue))"))
        if let eku = c.extendedKeyUsage { rows.append(("EKU", eku.map(esc).joined(separator: ", "))) }
        if c.isCA { rows.append(("CA", "yes")) }
        rows.append(("SHA-256", c.sha256Fingerprint))
        rows.append(("SPKI pin", c.spkiSHA256Base64))
        let body = table(rows, indent: "      ")
        return "  [\(index)]" + body.dropFirst(5)
    }

    package static func table(_ rows: [(String, String)], indent: String = "") -> String {
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { indent + $0.0.padded(to: width + 2) + $0.1 + "\n" }.joined()
    }

    package static func esc(_ text: String) -> String { UntrustedText.escape(text) }

    package static func signatureText(_ check: SignedCertificateTimestamp.SignatureCheck) -> String {
        switch check {
        case .valid: "valid"
        case .invalid: "INVALID"
        case .unknownLog: "not checked (no key for this log)"
        case .noIssuer: "not checked (the leaf's issuer is unknown)"
        case .notChecked: "not checked"
        }
    }

    package static func iso(_ date: Date) -> String {
        CivilCalendar.timestamp(secondsSinceEpoch: date.timeIntervalSince1970)
    }
}
