import Foundation
import Testing
import ATSTestServers
import TestSupport

/// `atsprobe pins`: the served chain's SPKI pins as openssl computes them, the suggested
/// NSPinnedDomains plist (parsed by Python's plistlib), and --plist judgements with exit codes.
@Suite("Pins command")
struct PinsCommandTests {
    struct Served {
        let pki: TestPKI
        let root: String
        let identity: TestIdentity
        let leafPin: String
        let intermediatePin: String
        let rootPin: String
    }

    /// A leaf under an intermediate, the pins computed by the openssl command line.
    static func served() throws -> Served {
        let pki = try TestPKI(withIntermediate: true)
        let identity = try pki.issue(CertificateSpec())
        return Served(pki: pki, root: try pki.writeRootPEM(), identity: identity,
                      leafPin: try TrustSupport.opensslPin(identity.certificatePEM),
                      intermediatePin: try TrustSupport.opensslPin(pki.intermediatePEM!),
                      rootPin: try TrustSupport.opensslPin(pki.rootPEM))
    }

    /// An Info.plist with one NSPinnedDomains entry, written in `directory`.
    static func infoPlist(domain: String, includesSubdomains: Bool = false, ca: [String]?, leaf: [String]?,
                          in directory: TemporaryDirectory) throws -> String {
        func identities(_ key: String, _ pins: [String]?) -> String {
            guard let pins else { return "" }
            return "<key>\(key)</key><array>" + pins.map { "<dict><key>SPKI-SHA256-BASE64</key><string>\($0)</string></dict>" }.joined() + "</array>"
        }
        let text = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0"><dict>
        <key>CFBundleIdentifier</key><string>com.example.pins</string>
        <key>NSAppTransportSecurity</key><dict><key>NSPinnedDomains</key><dict>
        <key>\(domain)</key><dict><key>NSIncludesSubdomains</key><\(includesSubdomains)/>\(identities("NSPinnedCAIdentities", ca))\(identities("NSPinnedLeafIdentities", leaf))</dict>
        </dict></dict></dict></plist>
        """
        return try TrustSupport.write(text, named: "Info.plist", in: directory)
    }

    @Test func textAndJSONGiveOpenSSLsPins() async throws {
        let s = try Self.served()
        let (text, json, today) = try await TrustSupport.withServer(TLSServerConfiguration(identity: s.identity)) { port in
            let url = "https://127.0.0.1:\(port)/"
            return (try await TrustSupport.run(["pins", "--ca-file", s.root, url]),
                    try await TrustSupport.run(["pins", "--ca-file", s.root, "--json", "--at", "2000-06-01", url]),
                    try await TrustSupport.run(["pins", "--ca-file", s.root, "--json", url]))
        }
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("[0] leaf \(s.leafPin)  O=atsprobe tests,CN=localhost"), "\(text.stdout)")
        #expect(text.stdout.contains("[1] CA   \(s.intermediatePin)  O=atsprobe tests,CN=atsprobe Test Root Intermediate"), "\(text.stdout)")
        #expect(text.stdout.contains("<key>NSPinnedDomains</key>"))
        #expect(text.stdout.contains("<string>\(s.leafPin)</string>"))
        #expect(!text.stdout.contains(s.rootPin), "the root is not served, so it is not pinned")

        #expect(json.status == 0)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let certificates = try #require(document["certificates"] as? [[String: Any]])
        #expect(certificates.map { $0["spkiSHA256Base64"] as? String } == [s.leafPin, s.intermediatePin])
        #expect(certificates.map { $0["role"] as? String } == ["leaf", "CA"])
        // --at is the clock for trust here too: in 2000 the leaf was not yet valid.
        let trust = try #require(document["trust"] as? [String: Any])
        #expect(trust["evaluatedAt"] as? String == "2000-06-01T00:00:00Z")
        #expect((trust["problems"] as? [[String: Any]])?.first?["kind"] as? String == "notYetValid")
        let todayTrust = try #require((try JSONSerialization.jsonObject(with: Data(today.stdout.utf8)) as? [String: Any])?["trust"] as? [String: Any])
        #expect((todayTrust["problems"] as? [Any])?.isEmpty == true)
        #expect(document["pinsSatisfied"] == nil || document["pinsSatisfied"] is NSNull)
    }

    /// The text says what the suggested dictionary pins, as it is: the served CA and the leaf
    /// when a CA is sent; the leaf only (and why) when the server sends the leaf alone (issue 31).
    @Test func textSaysWhatTheSuggestedDictionaryPins() async throws {
        let s = try Self.served()
        let (withCA, leafOnly) = try await TrustSupport.withServer(TLSServerConfiguration(identity: s.identity)) { port in
            let withCA = try await TrustSupport.run(["pins", "--ca-file", s.root, "https://127.0.0.1:\(port)/"])
            let leafOnly = try await TrustSupport.withServer(TLSServerConfiguration(identity: s.identity, sendChain: false)) { bare in
                try await TrustSupport.run(["pins", "--ca-file", s.root, "https://127.0.0.1:\(bare)/"])
            }
            return (withCA, leafOnly)
        }
        #expect(withCA.stdout.contains("\nNSPinnedDomains, pinning the served CA certificate and the leaf (both must then match;\n"), "\(withCA.stdout)")
        #expect(withCA.stdout.contains("<key>NSPinnedCAIdentities</key>") && withCA.stdout.contains("<string>\(s.intermediatePin)</string>"))
        #expect(withCA.stdout.contains("<key>NSPinnedLeafIdentities</key>") && withCA.stdout.contains("<string>\(s.leafPin)</string>"))

        #expect(leafOnly.stdout.contains("\nNSPinnedDomains, pinning the leaf only: the server sent no CA certificate, so no CA pin can be\n"), "\(leafOnly.stdout)\n\(leafOnly.stderr)")
        #expect(!leafOnly.stdout.contains("pinning the served CA"))
        #expect(!leafOnly.stdout.contains("<key>NSPinnedCAIdentities</key>"), "\(leafOnly.stdout)")
        #expect(leafOnly.stdout.contains("<key>NSPinnedLeafIdentities</key>") && leafOnly.stdout.contains("<string>\(s.leafPin)</string>"))
    }

    @Test func plistOutputParsesWithPlistlib() async throws {
        let s = try Self.served()
        let result = try await TrustSupport.withServer(TLSServerConfiguration(identity: s.identity)) { port in
            try await TrustSupport.run(["pins", "--ca-file", s.root, "--format", "plist", "https://127.0.0.1:\(port)/"])
        }
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("<?xml"), "only the plist: \(result.stdout)")
        let directory = try TrustSupport.directory()
        defer { directory.remove() }
        let path = try TrustSupport.write(result.stdout, named: "pins.plist", in: directory)
        let script = """
        python3 -c 'import plistlib, sys; d = plistlib.load(open(sys.argv[1], "rb"))["NSAppTransportSecurity"]["NSPinnedDomains"]["127.0.0.1"]; print(d["NSIncludesSubdomains"]); print(" ".join(x["SPKI-SHA256-BASE64"] for x in d["NSPinnedCAIdentities"])); print(" ".join(x["SPKI-SHA256-BASE64"] for x in d["NSPinnedLeafIdentities"]))' '\(path)'
        """
        let parsed = try TrustSupport.shell(script)
        #expect(parsed.status == 0)
        #expect(parsed.stdout == "False\n\(s.intermediatePin)\n\(s.leafPin)\n", "\(parsed.stdout)")
    }

    /// CA pins: any served CA; leaf pins: the leaf; both present: both.
    @Test(arguments: [
        ("CA pin of the intermediate", true, false, false, 0),
        ("leaf pin", false, true, false, 0),
        ("both right", true, true, false, 0),
        ("CA right, leaf wrong", true, false, true, 1),
        ("leaf only, wrong", false, false, true, 1),
    ])
    func plistPinsAreJudged(label: String, pinCA: Bool, pinLeaf: Bool, wrongLeaf: Bool, status: Int32) async throws {
        let s = try Self.served()
        let other = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
        let directory = try TrustSupport.directory()
        defer { directory.remove() }
        let plist = try Self.infoPlist(domain: "localhost", ca: pinCA ? [other, s.intermediatePin] : nil,
                                       leaf: pinLeaf ? [s.leafPin] : (wrongLeaf ? [other] : nil), in: directory)
        let result = try await TrustSupport.withServer(TLSServerConfiguration(identity: s.identity)) { port in
            try await TrustSupport.run(["pins", "--ca-file", s.root, "--plist", plist,
                                  "--connect-to", "localhost:\(port):127.0.0.1:\(port)", "https://localhost:\(port)/"])
        }
        #expect(result.status == status, "\(label): \(result.stdout) \(result.stderr)")
        #expect(result.stdout.contains(status == 0 ? "Result: pins satisfied" : "Result: pins NOT satisfied"), "\(label): \(result.stdout)")
        #expect(result.stdout.contains("  - localhost (anyDepth, oneLabel): "), "\(label): \(result.stdout)")
    }

    /// Apple matches pins against the chain it built, which ends at the root even when the
    /// server does not send it: a root pin is satisfied (the chain as built, trust.path).
    @Test func rootPinMatchesTheRootTheChainWasBuiltTo() async throws {
        let s = try Self.served()
        let directory = try TrustSupport.directory()
        defer { directory.remove() }
        let plist = try Self.infoPlist(domain: "example.test", includesSubdomains: true, ca: [s.rootPin], leaf: nil, in: directory)
        let result = try await TrustSupport.withServer(TLSServerConfiguration(identity: s.identity)) { port in
            try await TrustSupport.run(["pins", "--ca-file", s.root, "--plist", plist, "--json",
                                  "--connect-to", "www.example.test:\(port):127.0.0.1:\(port)", "https://www.example.test:\(port)/"])
        }
        #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(document["pinsSatisfied"] as? Bool == true)
        // docs/json-schema.md, "Run": a pins document carries `run` (it was set and never written).
        let run = try #require(document["run"] as? [String: Any], "\(result.stdout)")
        #expect(run["tool"] as? String == "atsprobe" && run["ruleSet"] == nil && run["trustStore"] is String, "\(run)")
        let check = try #require((document["pinChecks"] as? [[String: Any]])?.first)
        #expect(check["domain"] as? String == "example.test")
        #expect((check["result"] as? [String: Any])?["verdict"] as? String == "matched")
    }

    @Test func noEntryForTheHostIsNotARestriction() async throws {
        let s = try Self.served()
        let directory = try TrustSupport.directory()
        defer { directory.remove() }
        let plist = try Self.infoPlist(domain: "elsewhere.example", ca: [s.rootPin], leaf: nil, in: directory)
        let result = try await TrustSupport.withServer(TLSServerConfiguration(identity: s.identity)) { port in
            try await TrustSupport.run(["pins", "--ca-file", s.root, "--plist", plist, "https://127.0.0.1:\(port)/"])
        }
        #expect(result.status == 0)
        #expect(result.stdout.contains("none: no NSPinnedDomains entry applies"))
    }

    /// A port nothing listens on (the listener is closed before the run): exit 2, no plist.
    @Test func unreachableIsExit2WithoutAPlist() async throws {
        let port = try unusedLoopbackPort()
        let result = try await TrustSupport.run(["pins", "--format", "plist", "--timeout", "5", "127.0.0.1:\(port)"], timeout: 30)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("no plist: handshake failed: connection refused"), "\(result.stderr)")
    }

    @Test func plistWithoutPinnedDomainsIsBadInput() async throws {
        let directory = try TrustSupport.directory()
        defer { directory.remove() }
        let path = try TrustSupport.write("""
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict><key>NSAppTransportSecurity</key><dict><key>NSAllowsArbitraryLoads</key><true/></dict></dict></plist>
        """, named: "Info.plist", in: directory)
        let result = try await TrustSupport.run(["pins", "--plist", path, "127.0.0.1:1"], timeout: 30)
        #expect(result.status == 64)
        #expect(result.stderr.contains("no NSPinnedDomains dictionary"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
    }
}
