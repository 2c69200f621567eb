import TLSFacts

/// Which addresses a caIssuers fetch may connect to (issue 24 item 5). The server's
/// certificates choose every caIssuers URL, so without a rule a hostile target aims the auditor
/// at its own network: loopback ports, the cloud's link-local metadata address, private ranges.
/// Apple's trustd fetches any http URL (SecCAIssuerRequest.m: no address rule), but a phone has
/// no such network around it; an auditor scanning strangers' hosts from a server has. So by
/// default a fetch may reach a non-global address only when the target itself has one (a lab
/// or loopback target fetching from its own network), and `--allow-private-fetch` lifts the
/// rule. Checked on every address the name resolves to, before each connect (docs/trust.md).
package struct IssuerFetchAddressPolicy: Sendable, Hashable {
    /// True: any address (--allow-private-fetch, or a target that is itself non-global).
    package var allowsNonGlobal: Bool

    package init(allowsNonGlobal: Bool) {
        self.allowsNonGlobal = allowsNonGlobal
    }

    /// The policy for a target at `targetAddress` (the address the probe connected to, or the
    /// host named in `cert --host` when it is an IP literal): a non-global target may fetch
    /// from its own kind of network.
    package init(targetAddress: String?, allowPrivateFetch: Bool) {
        let targetClass = targetAddress.flatMap(IPAddress.init).map(AddressClass.init)
        allowsNonGlobal = allowPrivateFetch || (targetClass.map { $0 != .global } ?? false)
    }

    /// Nil when the fetch may connect to `address`, else why not (one line, for the reason).
    package func refusal(connectingTo address: String) -> String? {
        guard !allowsNonGlobal, let parsed = IPAddress(address) else { return nil }
        let kind = AddressClass(parsed)
        guard kind != .global else { return nil }
        return "refused: \(address) is a \(kind.rawValue) address and the target is not "
            + "(a server must not aim the auditor at its own network)"
    }

    /// Where an address is routed, after IANA's special-purpose registries (RFC 6890 and its
    /// updates): only `.global` is reachable from the whole Internet.
    package enum AddressClass: String, Sendable, Hashable {
        case global
        case loopback
        case linkLocal = "link-local"
        case privateUse = "private"
        case sharedCGNAT = "shared (carrier-grade NAT)"
        case unspecified
        case multicast
        case reserved

        package init(_ address: IPAddress) {
            let b = address.bytes
            if address.family == .v4 {
                self = AddressClass.v4(b[0], b[1], b[2])
                return
            }
            // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible forms are judged as IPv4.
            if b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xFF && b[11] == 0xFF {
                self = AddressClass.v4(b[12], b[13], b[14])
                return
            }
            if b.allSatisfy({ $0 == 0 }) { self = .unspecified; return }
            if b[0..<15].allSatisfy({ $0 == 0 }) && b[15] == 1 { self = .loopback; return }
            if b[0] == 0xFE && b[1] & 0xC0 == 0x80 { self = .linkLocal; return }   // fe80::/10
            if b[0] & 0xFE == 0xFC { self = .privateUse; return }                   // fc00::/7 (ULA)
            if b[0] == 0xFE && b[1] & 0xC0 == 0xC0 { self = .privateUse; return }   // fec0::/10 (site-local, deprecated)
            if b[0] == 0xFF { self = .multicast; return }
            if b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0D && b[3] == 0xB8 { self = .reserved; return }  // 2001:db8::/32
            if b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xFF && b[3] == 0x9B && b[4..<12].allSatisfy({ $0 == 0 }) {
                self = AddressClass.v4(b[12], b[13], b[14])                            // 64:ff9b::/96 (NAT64)
                return
            }
            self = b[0] & 0xE0 == 0x20 ? .global : .reserved                      // 2000::/3 is the global unicast space
        }

        private static func v4(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> AddressClass {
            switch (a, b) {
            case (0, _): return .unspecified                                      // 0.0.0.0/8 ("this network")
            case (127, _): return .loopback
            case (169, 254): return .linkLocal                                    // cloud metadata lives here
            case (10, _), (192, 168): return .privateUse
            case (172, _) where (16...31).contains(b): return .privateUse
            case (100, _) where (64...127).contains(b): return .sharedCGNAT
            case (192, 0) where c == 0 || c == 2: return .reserved                // IETF protocol assignments, TEST-NET-1
            case (198, 18), (198, 19): return .reserved                           // benchmarking
            case (198, 51) where c == 100: return .reserved                       // TEST-NET-2
            case (203, 0) where c == 113: return .reserved                        // TEST-NET-3
            default:
                if a >= 224 && a <= 239 { return .multicast }
                if a >= 240 { return .reserved }                                  // 240/4 and broadcast
                return .global
            }
        }
    }
}
