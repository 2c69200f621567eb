import Foundation
import Testing
@testable import ATSProbe
import ATSPolicy
import ATSTrust
import ATSTestServers
import TextSupport
import TLSFacts

/// Apple's root store as built in, and which store judges a chain.
@Suite("Apple's root store")
struct AppleRootStoreTests {
    /// Every root's DER hashes to the SHA-256 Apple named its file by, and parses.
    @Test func everyRootMatchesItsName() throws {
        #expect(AppleRootStore.roots.count == 156)
        #expect(AppleRootStore.version == "security_certificates-55349.0.11")
        for root in AppleRootStore.roots {
            let digest = root.der.withUnsafeBytes { CertificateReader.sha256($0) }
            #expect(digest.hexEncoded().uppercased() == root.sha256, "\(root.name)")
            #expect(!root.name.isEmpty, "\(root.sha256)")
        }
        #expect(AppleRootStore.parseableCount() == 156)
        #expect(Set(AppleRootStore.roots.map(\.sha256)).count == 156)
    }

    /// Apple's own roots, exempt from the system-root CT requirement (ATSPolicy AppleAnchors,
    /// SecAppleAnchor.c getAnchors): Apple Root CA, G2 and G3 are system roots in the store as
    /// built in; the two Platform Backport G1 roots are not (no system root, so no CT anyway).
    @Test func applesOwnRootsAreInTheStore() {
        let store = Set(AppleRootStore.roots.map(\.sha256))
        #expect(AppleAnchors.sha256Fingerprints.filter(store.contains).count == 3)
    }

    /// Apple's roots are decoded on demand (AppleRootLookup): every root's subject is read from
    /// its DER, and asking the store for the issuer of each root (self-issued: its issuer is its
    /// subject) finds that very root. A lookup that missed would leave every chain to an Apple
    /// root untrusted.
    @Test func everyRootIsFoundBySubjectThroughTheLookup() throws {
        #expect(AppleRootLookup.subjects.count == 156)
        #expect(AppleRootLookup.subjects.allSatisfy { $0 != nil })
        // A root re-issued under the same subject and key may answer for its twin: the issuer
        // found must be one of Apple's roots, itself in all but such cases.
        let apple = Set(AppleRootStore.roots.map(\.sha256))
        var itself = 0
        for root in AppleRootStore.roots {
            let cert = try #require(AppleRootLookup.decode(root.der))
            let found = TrustStore.issuerFingerprint(of: cert, in: .apple)?.uppercased().replacingOccurrences(of: ":", with: "")
            #expect(found.map(apple.contains) == true, "\(root.name)")
            if found == root.sha256 { itself += 1 }
        }
        #expect(itself >= 150)
        // A test root has no issuer there.
        let pki = try TestPKI()
        let path = try pki.writeRootPEM()
        let testRoot = try #require(TrustStore.readPEMCertificates(path: path, required: true).first)
        #expect(TrustStore.issuerFingerprint(of: testRoot, in: .apple) == nil)
    }

    @Test func derWalkerRefusesTruncatedCertificates() {
        let der = AppleRootStore.roots[0].der
        #expect(AppleRootLookup.subjectName(of: Array(der.prefix(40))) == nil)
        #expect(AppleRootLookup.element([0x30, 0x85, 1, 2, 3, 4, 5], at: 0) == nil)  // 5-byte length
        #expect(AppleRootLookup.element([0x30, 0x03, 1], at: 0) == nil)  // runs past the end
    }

    /// Apple's store holds Apple's own roots and the article-121668 roots; the Debian-only
    /// roots the issue names are absent.
    @Test func knownMembersAndNonMembers() {
        let names = AppleRootStore.roots.map(\.name)
        #expect(names.contains { $0.contains("CN=Apple Root CA - G3") })
        #expect(names.contains { $0.contains("SSL.com TLS RSA Root CA 2022") })
        #expect(!names.contains { $0.contains("vTrus") })
        #expect(!names.contains { $0.contains("TunTrust") })
    }

    /// The default store is Apple's: a loopback test root is in no store, and the output names
    /// the store with its version.
    @Test func defaultStoreIsApples() async throws {
        let pki = try TestPKI()
        let prober = try Prober(options: ProbeOptions())
        #expect(prober.trustStoreName == "Apple's root store security_certificates-55349.0.11 (156 roots)")
        let server = try TestTLSServer.start(TLSServerConfiguration(identity: try pki.issue(CertificateSpec())))
        defer { server.stop() }
        let observation = try await prober.probe(loopbackRequest(port: server.port)).get()
        #expect(observation.trust.store == "Apple's root store security_certificates-55349.0.11 (156 roots)")
        #expect(observation.trust.anchor == nil)
        #expect(observation.trust.problems.map(\.kind) == [.incompleteChain])
        #expect(observation.trust.problems.first?.detail.hasSuffix("; no caIssuers URL to fetch it from") == true)
        #expect(observation.trust.otherStore == nil, "the machine's store lacks the test root too")
    }

    /// A root only in the chosen store (the test seam adds it to Apple's): the comparison says
    /// the machine's store does not trust it. With --trust-store system the names swap.
    @Test func storesDisagree() async throws {
        let host = try LoopbackHost()
        defer { host.stop() }
        let (server, rootPath) = (host.server, host.rootPath)
        for choice in TrustStoreChoice.allCases {
            let prober = try Prober(options: ProbeOptions(additionalSystemAnchorsFile: rootPath, trustStore: choice))
            let observation = try await prober.probe(loopbackRequest(port: server.port)).get()
            #expect(observation.trust.anchor == .system)
            #expect(observation.trust.isTrusted)
            let other = try #require(observation.trust.otherStore)
            #expect(other.trusts == false)
            let apple = "Apple's root store security_certificates-55349.0.11 (156 roots)"
            if choice == .apple {
                #expect(other.detail.hasPrefix("trusted by \(apple), not by the system store (OpenSSL: "), "\(other.detail)")
            } else {
                #expect(other.detail.hasPrefix("trusted by the system store (OpenSSL: "), "\(other.detail)")
                #expect(other.detail.hasSuffix("not by \(apple)"), "\(other.detail)")
            }
            #expect(observation.trust.path?.count == 2)
            #expect(observation.trust.anchorCertificate?.subject.contains("atsprobe Test Root") == true)
        }
    }
}
