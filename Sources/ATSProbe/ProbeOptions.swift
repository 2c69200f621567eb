#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts
import ATSPolicy
import ATSTrust

/// How a `Prober` judges trust and how hard it may push the network. Not public: a run's prober
/// takes its options from a `RunContext` (ATSEngine's `Run`), the one way in.
package struct ProbeOptions: Sendable {
    /// PEM bundle of extra anchors, treated as user-installed roots.
    package var caFile: String?
    /// A directory of PEM files (an OpenSSL hashed directory is one), treated as user-installed roots.
    package var caDirectory: String?
    /// Trust a system store's roots as well (which one: `trustStore`).
    package var useSystemTrustStore: Bool
    /// The system store: Apple's, built in (the default), or the machine's OpenSSL store.
    package var trustStore: TrustStoreChoice
    /// Fetch missing intermediates from caIssuers URLs as Apple's trustd does (off: watchOS).
    package var fetchesMissingIssuers: Bool
    /// Let caIssuers fetches reach loopback, link-local, private and other non-global addresses
    /// whatever the target's address (--allow-private-fetch). Off: only a target that is itself
    /// at such an address may fetch from one (IssuerFetchAddressPolicy, docs/trust.md).
    package var allowsPrivateIssuerFetch: Bool = false
    /// Which hosts and addresses the probes' connections (handshakes and cleartext GETs: the
    /// target and every redirect followed) may use; nil: any. `atsprobe serve`'s allow list
    /// (docs/serve.md). A refused host or address is never connected to.
    package var connectionAdmission: ConnectionAdmission?
    /// The time trust is judged at; nil means the moment the `Prober` is made (`Prober.evaluationDate`).
    package var evaluationDate: Date?
    /// At most this many handshakes (and cleartext GETs) in flight at once across everything a
    /// `Prober` does (every test of every audit target); more wait, suspended, for a slot. Each
    /// holds one descriptor. As many as the runtime's descriptor budget can have (`DescriptorBudget.maxSlots`).
    package var maxHandshakesInFlight: Int = DescriptorBudget.maxSlots
    /// TEST SEAM, not exposed by the CLI: a PEM bundle whose certificates join the system store,
    /// so chains ending there are judged as package roots (AnchorSource.system: the 398-day and CT
    /// rules apply). Loopback test roots are in no real system store; this stands in for one, as
    /// SSL_CERT_FILE does for the binary. Never use it to make a chain look trusted.
    package var additionalSystemAnchorsFile: String?
    /// The CT log list: each SCT's signature is checked against its log's key
    /// (`SignedCertificateTimestamp.signature`; an SCT from a log not in the list is
    /// `.unknownLog`), and the engine judges Apple's CT policy against the same list (one list,
    /// so the two cannot disagree). Apple's list as built in unless given.
    package var ctLogs: CTLogList
    /// The keys of `ctLogs`, by log ID (base64): DER SubjectPublicKeyInfo.
    package var ctLogKeys: [String: [UInt8]] { ctLogs.keys }
    /// DNS servers to resolve through instead of resolv.conf's, as curl's --dns-servers:
    /// "ADDR[:PORT][,ADDR[:PORT]...]", IPv6 in brackets when a port follows. nil: the system's.
    package var dnsServers: String?
    /// PEM bundle of anchors an app sets itself (`cert --app-anchor`; AnchorConfiguration.appAnchorFile).
    package var appAnchorFile: String?

    package init(caFile: String? = nil, caDirectory: String? = nil, useSystemTrustStore: Bool = true,
                evaluationDate: Date? = nil,
                additionalSystemAnchorsFile: String? = nil, ctLogs: CTLogList = .apple,
                trustStore: TrustStoreChoice = .apple, fetchesMissingIssuers: Bool = true, dnsServers: String? = nil) {
        self.dnsServers = dnsServers
        self.trustStore = trustStore
        self.fetchesMissingIssuers = fetchesMissingIssuers
        self.ctLogs = ctLogs
        self.caFile = caFile
        self.caDirectory = caDirectory
        self.useSystemTrustStore = useSystemTrustStore
        self.evaluationDate = evaluationDate
        self.additionalSystemAnchorsFile = additionalSystemAnchorsFile
    }
}

/// The errors `Prober.init` throws: an anchor file or directory that cannot be read (ATSTrust).
package typealias ProbeSetupError = TrustSetupError

extension ProbeOptions {
    /// The anchors these options describe, as ATSTrust takes them.
    var anchors: AnchorConfiguration {
        AnchorConfiguration(caFile: caFile, caDirectory: caDirectory, useSystemTrustStore: useSystemTrustStore,
                            trustStore: trustStore, additionalSystemAnchorsFile: additionalSystemAnchorsFile, appAnchorFile: appAnchorFile)
    }
}

/// A check on every connection a `Prober` opens: the host asked for, before any lookup, then
/// each address it resolved to (or the connect-to address), before connecting. Each returns
/// nil to allow, or one line saying why not (the probe's `.other` failure detail).
package struct ConnectionAdmission: Sendable {
    package let host: @Sendable (_ host: String) -> String?
    package let address: @Sendable (_ host: String, _ address: String) -> String?

    package init(host: @escaping @Sendable (_ host: String) -> String?, address: @escaping @Sendable (_ host: String, _ address: String) -> String?) {
        self.host = host
        self.address = address
    }
}
