import ATSPolicy
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TextSupport
import TLSFacts

/// Apple's rules for the keys of NSExceptionDomains and NSPinnedDomains: a bare host name (no
/// scheme, port, path or wildcard), or, since iOS 17 / macOS 14, an IP address or CIDR range.
/// Whether the lookup finds a host-name key (case, trailing dot) is `DomainKeys.unmatchable`'s
/// answer, the same one explain, check and app give. A key breaking them never matches.
struct DomainKeyLint {
    let key: String
    let table: DomainKeys.Table
    let path: LintKeyPath

    func findings() -> [LintFinding] {
        var found: [LintFinding] = []
        func add(_ rule: LintRule, _ message: String, fix: String) { found.append(LintFinding(rule, at: path, message, fix: fix)) }
        let shown = quoted(key)
        let fix = correctedKey.map { "use the key '\($0)'" } ?? "remove the entry or fix its key"

        if key.isEmpty {
            add(.domainEmpty, "the domain key is empty, so it matches no host", fix: "remove the entry or name the host")
            return found
        }
        if key.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 }) {
            add(.domainWhitespace, "domain key \(shown) contains white space, so it matches no host", fix: fix)
        }
        let parts = Parts(key.filter { !$0.isWhitespace })
        if parts.scheme != nil {
            add(.domainScheme, "domain key \(shown) has a scheme; keys are bare host names", fix: fix)
        }
        guard !parts.host.isEmpty else {
            if parts.scheme == nil { add(.domainEmpty, "domain key \(shown) names no host", fix: "remove the entry or name the host") }
            return found
        }
        if parts.port != nil {
            add(.domainPort, "domain key \(shown) has a port; keys never match one, and an exception covers every port of the host", fix: fix)
        }

        if parts.looksLikeAddress {
            if let problem = parts.addressProblem {
                add(.cidrMalformed, "key \(shown) is not a valid IP address or CIDR range: \(problem)", fix: "write an address such as '192.0.2.1' or a range such as '192.0.2.0/24' or '2001:db8::/32'")
            } else if table == .exceptionDomains {
                let kind = parts.prefix == nil ? "IP address" : "CIDR range"
                add(.ipKeyRelease, "\(kind) key \(shown) is read only on iOS 17 / macOS 14 and later; before that, IP addresses are not subject to ATS and the key does nothing",
                    fix: "keep it if you support iOS 17+ only; on older releases connections to IP addresses are not restricted by ATS anyway")
            }
            return found
        }

        if parts.prefix != nil {
            add(.domainPath, "domain key \(shown) has a path; keys are host names and cover every path", fix: fix)
        }
        if parts.host.contains("*") {
            let base = correctedKey ?? "example.com"
            add(.domainWildcard, "domain key \(shown) is a wildcard; ATS does not expand '*', so it matches no host",
                fix: "use the key '\(base)' with NSIncludesSubdomains = true")
        }
        // Whether the lookup finds the key at all: DomainKeys, the one matcher (Apple's exact
        // exception lookup; the pin lookup's case-insensitive compare without the trailing dot).
        if let miss = DomainKeys.unmatchable(parts.host, in: table) {
            let rename = correctedKey.map { "use the key '\($0)'" } ?? "use the key '\(UntrustedText.escape(miss.rename, limit: 200))'"
            if miss.reasons.contains(.upperCase) {
                add(.domainUppercase, "domain key \(shown) has upper-case letters, so it matches no host: ATS looks the host up exactly as written, "
                    + "and URL hosts are lower case", fix: rename)
            }
            if miss.reasons.contains(.trailingDot) {
                let why = table == .exceptionDomains
                    ? "so it matches only a URL whose host is written with the dot (https://\(UntrustedText.escape(key, limit: 200))/), never '\(UntrustedText.escape(miss.rename, limit: 200))'"
                    : "so it matches no host: the pin lookup removes the host's trailing dot first"
                add(.domainTrailingDot, "domain key \(shown) ends in a dot, \(why)", fix: rename)
            }
        }
        return found
    }

    /// What the key probably meant: lower case, no scheme, port, path, wildcard label or dot at the end.
    var correctedKey: String? {
        let parts = Parts(key.filter { !$0.isWhitespace })
        if parts.looksLikeAddress {
            guard parts.addressProblem == nil else { return nil }
            return UntrustedText.escape(parts.host.lowercased() + (parts.prefix.map { "/" + $0 } ?? ""), limit: 200)
        }
        var host = parts.host.lowercased()
        while host.hasPrefix("*.") { host.removeFirst(2) }
        host = host.replacing("*", with: "")
        while host.hasSuffix(".") { host.removeLast() }
        guard !host.isEmpty else { return nil }
        return UntrustedText.escape(host, limit: 200)
    }

    private func quoted(_ text: String) -> String { "'\(UntrustedText.escape(text, limit: 200))'" }

    /// The key split the way a user might have written a URL: scheme://host:port/rest.
    struct Parts {
        var scheme: String?
        var host: String
        var port: String?
        /// Text after the first "/": a CIDR prefix length, or a path.
        var prefix: String?

        init(_ text: String) {
            var rest = Substring(text)
            if let range = rest.firstRange(of: "://") {
                scheme = String(rest[..<range.lowerBound])
                rest = rest[range.upperBound...]
            }
            if let slash = rest.firstIndex(of: "/") {
                prefix = String(rest[rest.index(after: slash)...])
                rest = rest[..<slash]
            }
            // One colon is a port; two or more is an IPv6 address.
            if rest.filter({ $0 == ":" }).count == 1, let colon = rest.firstIndex(of: ":") {
                port = String(rest[rest.index(after: colon)...])
                rest = rest[..<colon]
            }
            host = String(rest)
        }

        /// An IP literal, or something clearly meant as one (digits and dots, or IPv6 colons).
        var looksLikeAddress: Bool {
            if Target.isIPAddress(host) { return true }
            if host.filter({ $0 == ":" }).count >= 2 { return true }
            return host.contains(".") && host.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") }
        }

        /// Why an address-like key does not parse, nil when it does.
        var addressProblem: String? {
            let isV4 = !host.contains(":")
            let valid = IPAddress(host, family: isV4 ? .v4 : .v6) != nil
            guard valid else {
                return host.hasPrefix("[") ? "write IPv6 keys without brackets" : "'\(UntrustedText.escape(host, limit: 100))' is not an IP\(isV4 ? "v4" : "v6") address"
            }
            guard let prefix else { return nil }
            let limit = isV4 ? 32 : 128
            guard !prefix.isEmpty, prefix.count <= 3, prefix.allSatisfy({ $0.isASCII && $0.isNumber }), let bits = Int(prefix), bits <= limit else {
                return "the prefix length '\(UntrustedText.escape(prefix, limit: 100))' is not a number from 0 to \(limit)"
            }
            return nil
        }
    }
}
