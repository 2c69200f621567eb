// The words `plist check` and `app` use for a reading and for the part of a dictionary that
// governs a load: the document's `governedBy` field and the text beside it.

import ATSPolicy
import TextSupport
import TLSFacts

extension SubdomainReading {
    /// For people: whose reading it is.
    package var label: String {
        switch self {
        case .anyDepth: "Apple's code, NSIncludesSubdomains at any depth"
        case .oneLabel: "Apple's documentation, NSIncludesSubdomains one label down"
        }
    }
}

extension EffectivePolicy {
    /// Which part of the dictionary governs the load, for people.
    package var governedBy: String {
        if let match {
            let key = "NSExceptionDomains entry \"\(UntrustedText.escape(match.key, limit: 255))\""
            switch match.kind {
            case .exact: return "\(key) (exact match)"
            case .subdomain(let depth):
                return "\(key) (subdomain \(depth) label\(depth == 1 ? "" : "s") down, NSIncludesSubdomains)"
            case .addressRange(let length): return "\(key) (address range /\(length))"
            }
        }
        switch exemption {
        case .arbitraryLoads?: return "NSAllowsArbitraryLoads (no entry for the host: ATS is off)"
        case .localNetworking?: return "local networking (a local name or loopback address, not subject to ATS)"
        case .ipAddressBeforeIOS17?: return "nothing (IP addresses are not subject to ATS under \(ruleSetID))"
        case nil: return "default ATS (no entry for the host)"
        }
    }
}
