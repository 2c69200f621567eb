import ATSPolicy
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport
import TLSFacts

/// The instants within a horizon at which a judgement of the recorded handshakes may change:
/// the only dated inputs of the judgement are the certificates' validity, the CT log list's
/// state dates and the distrust list's dates, so between two of these instants nothing changes.
struct ForecastCandidates {
    /// Instants at which the target's verdict may change, with what happens there, in order.
    private(set) var verdictInstants: [(Date, [ForecastCause])] = []
    /// Instants at which only a renewal's verdict may change (a root's distrust date), in order.
    private(set) var distrustInstants: [(Date, [ForecastCause])] = []

    /// Instants at which a renewal's verdict may change, in order: the forecast's own instants
    /// (the path's validity, among them an issuing CA's or the anchor's notAfter + 1 s, and the CT
    /// log dates) and the distrust dates. The renewal check reads these, the instants the forecast
    /// sees, rather than working out its own.
    var renewalInstants: [(Date, [ForecastCause])] {
        var table: [Date: [ForecastCause]] = [:]
        for (instant, causes) in verdictInstants + distrustInstants {
            for cause in causes where !(table[instant] ?? []).contains(cause) { table[instant, default: []].append(cause) }
        }
        return table.keys.sorted().map { ($0, table[$0] ?? []) }
    }

    /// Candidates in (start, end] of the completed handshakes.
    init(observations: [Observation], ctLogs: CTLogList, distrust: AppleDistrustList, within start: Date, _ end: Date) {
        self.init(chains: observations.map { ($0.chain, $0.trust, $0.deliveredSCTs) }, ctLogs: ctLogs, distrust: distrust,
                  within: start, end)
    }

    /// Candidates in (start, end] of chains as served, with their trust evaluation and the SCTs
    /// delivered beside them (`cert`: a chain file, none).
    init(chains: [(served: [CertificateFacts], trust: TrustEvaluation, deliveredSCTs: [SignedCertificateTimestamp])],
         ctLogs: CTLogList, distrust: AppleDistrustList, within start: Date, _ end: Date) {
        var verdict: [Date: [ForecastCause]] = [:]
        var distrustDates: [Date: [ForecastCause]] = [:]
        func add(_ cause: ForecastCause, at instant: Date, to table: inout [Date: [ForecastCause]]) {
            guard instant > start, instant <= end else { return }
            if !(table[instant] ?? []).contains(cause) { table[instant, default: []].append(cause) }
        }
        for observation in chains {
            let path = observation.trust.path ?? observation.served
            let anchored = observation.trust.path != nil && observation.trust.anchor != nil
            for (index, certificate) in path.enumerated() {
                let kind: ForecastCause.Kind = index == 0 ? .leafExpires
                    : (anchored && index == path.count - 1) || certificate.isSelfIssued ? .anchorExpires : .intermediateExpires
                let subject = UntrustedText.escape(certificate.subject, limit: 200)
                // Apple's validity is inclusive (SecCertificate.c SecCertificateIsValid: notBefore <= t <= notAfter):
                // the first instant outside it is notAfter + 1 s (X.509 times are whole seconds).
                add(ForecastCause(kind: kind, subject: subject, sha256: certificate.sha256Fingerprint, date: certificate.notAfter),
                    at: certificate.notAfter.addingTimeInterval(1), to: &verdict)
                add(ForecastCause(kind: .becomesValid, subject: subject, sha256: certificate.sha256Fingerprint, date: certificate.notBefore),
                    at: certificate.notBefore, to: &verdict)
                let fingerprint = certificate.sha256Fingerprint.uppercased().filter { $0 != ":" && $0 != " " }  // as the list keeps them
                for root in distrust.roots where root.sha256 == fingerprint {
                    add(ForecastCause(kind: .rootDistrusted, subject: root.name, sha256: certificate.sha256Fingerprint,
                                      date: root.distrustedFrom, source: root.source),
                        at: root.distrustedFrom, to: &distrustDates)
                }
            }
            let scts = (observation.served.first?.embeddedSCTs ?? []) + observation.deliveredSCTs
            for sct in scts {
                guard let log = ctLogs[sct.logID] else { continue }
                let cause = ForecastCause(kind: .ctLogState, subject: "\(log.name) \(log.state.rawValue)", date: log.stateSince,
                                          source: ctLogs.source)
                add(cause, at: log.stateSince, to: &verdict)
            }
        }
        verdictInstants = verdict.keys.sorted().map { ($0, verdict[$0]!) }
        distrustInstants = distrustDates.keys.sorted().map { ($0, distrustDates[$0]!) }
    }
}

extension TrustEvaluation {
    /// This evaluation as it would read at `date`: the same path and anchor, with the validity
    /// problems (expired, not yet valid) of the path's certificates (the served chain when no
    /// anchor was reached) at `date` in place of those at `evaluatedAt`. Validity is the only
    /// dated input of the chain check; Apple's is inclusive (SecCertificate.c
    /// SecCertificateIsValid: notBefore <= t <= notAfter), as `TrustEvaluator` reads OpenSSL's
    /// answer. The forecast tests check this against a run with `--at` at each instant.
    func judged(at date: Date, served: [CertificateFacts]) -> TrustEvaluation {
        var copy = self
        copy.evaluatedAt = date
        var problems = problems.filter { $0.kind != .expired && $0.kind != .notYetValid }
        var seen = Set<String>()
        for certificate in path ?? served {
            let index = served.firstIndex { $0.sha256Fingerprint == certificate.sha256Fingerprint }
            let label = "'\(certificate.subject)'"
            if date > certificate.notAfter, seen.insert("expired#\(index ?? -1)#\(certificate.sha256Fingerprint)").inserted {
                problems.append(TrustProblem(kind: .expired, certificateIndex: index, detail: "\(label) has expired"))
            }
            if date < certificate.notBefore, seen.insert("notYetValid#\(index ?? -1)#\(certificate.sha256Fingerprint)").inserted {
                problems.append(TrustProblem(kind: .notYetValid, certificateIndex: index, detail: "\(label) is not yet valid"))
            }
        }
        copy.problems = problems
        return copy
    }
}
