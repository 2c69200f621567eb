import ATSPolicy
import PropertyList
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts

/// What `pins` found: the served chain's SPKI pins, the suggested NSPinnedDomains entry, and
/// the judgement of each --plist pin set that applies to the host. The JSON document, and what
/// the text and the plist render (PinsText); ATSEngine judges the pins and writes it
/// (Documents/PinsReport+Engine.swift).
package struct PinsReport: Encodable {
    /// Set by the command: what the run was made with (docs/json-schema.md, "Run").
    package var run: RunInfo?
    /// One served certificate and its pin.
    package struct Certificate: Encodable {
        package let index: Int
        /// "leaf" or "CA" (any served certificate after the leaf).
        package let role: String
        package let subject: String
        package let issuer: String
        package let spkiSHA256Base64: String

        package init(index: Int, role: String, subject: String, issuer: String, spkiSHA256Base64: String) {
            self.index = index
            self.role = role
            self.subject = subject
            self.issuer = issuer
            self.spkiSHA256Base64 = spkiSHA256Base64
        }
    }

    /// One NSPinnedDomains entry that applies to the host, and whether the chain satisfies it.
    package struct PinCheck: Encodable {
        /// The entry's key, as written in the plist.
        package let domain: String
        /// The NSIncludesSubdomains readings under which the entry applies ("anyDepth", "oneLabel").
        package let readings: [String]
        package let pins: PinSet
        package let result: PinResult

        package init(domain: String, readings: [String], pins: PinSet, result: PinResult) {
            self.domain = domain
            self.readings = readings
            self.pins = pins
            self.result = result
        }
    }

    package let schemaVersion = jsonSchemaVersion
    package let target: TargetReport
    package let outcome: String
    package let failure: ProbeFailure?
    package let trust: TrustEvaluation?
    package let certificates: [Certificate]
    package let suggestedPinnedDomains: PropertyListValue?
    /// Whether --plist was given.
    package let plistChecked: Bool
    package let pinChecks: [PinCheck]
    /// nil without --plist or when no handshake was made; true when every applicable pin set is met.
    package let pinsSatisfied: Bool?

    private enum CodingKeys: String, CodingKey {
        case schemaVersion, run, target, outcome, failure, trust, certificates, suggestedPinnedDomains,
             plistChecked, pinChecks, pinsSatisfied
    }

    package init(target: TargetReport, failure: ProbeFailure?, trust: TrustEvaluation?, certificates: [Certificate],
                 suggestedPinnedDomains: PropertyListValue?, plistChecked: Bool, pinChecks: [PinCheck], pinsSatisfied: Bool?) {
        self.target = target
        outcome = failure == nil ? "handshake" : "failure"
        self.failure = failure
        self.trust = trust
        self.certificates = certificates
        self.suggestedPinnedDomains = suggestedPinnedDomains
        self.plistChecked = plistChecked
        self.pinChecks = pinChecks
        self.pinsSatisfied = pinsSatisfied
    }

    /// Unreachable when nothing spoke TLS; findings when the handshake failed or a --plist
    /// pin set is not satisfied; else clear.
    package var severity: AuditSeverity {
        if let failure { return failure.isUnreachable ? .unreachable : .findings }
        return pinsSatisfied == false ? .findings : .clear
    }
}
