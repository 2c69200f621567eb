import ATSPolicy
import TLSFacts

/// Adds to a handshake failure what the other handshakes showed, so a reason reads
/// "server's highest protocol is TLS 1.1" rather than only "protocol_version alert".
enum Explanations {
    /// True when `annotate` cannot change the outcome whatever other handshakes show: it passed,
    /// or it failed for a reason other than no shared protocol or suite.
    static func isSettled(_ outcome: TestOutcome) -> Bool {
        guard !outcome.verdict.passed, let hop = outcome.hops.first(where: { !$0.verdict.passed }),
              case .failure(let failure)? = hop.result, hop.offer != nil else { return true }
        return failure.kind != .noSharedProtocol && failure.kind != .noSharedCipher
    }

    static func annotate(_ outcome: TestOutcome, with results: [ProbeResult]) -> TestOutcome {
        guard !outcome.verdict.passed, let hop = outcome.hops.first(where: { !$0.verdict.passed }),
              case .failure(let failure)? = hop.result, let offer = hop.offer else { return outcome }
        let seen = results.compactMap { try? $0.get() }
        let clause: String?
        switch failure.kind {
        case .noSharedProtocol:
            clause = seen.map(\.protocolVersion).max().map { best in
                best < offer.minVersion
                    ? "the server's highest protocol is \(best)"
                    : "the server completes \(best) handshakes with other offers"
            }
        case .noSharedCipher:
            let chosen = Set(seen.filter { $0.protocolVersion >= offer.minVersion }.map(\.cipherSuite)).filter { !offer.suites.contains($0) }
            clause = chosen.isEmpty ? nil
                : "the server chooses \(chosen.sorted().map(\.ianaName).joined(separator: " or ")), which this offer does not include"
        default:
            clause = nil
        }
        guard let clause, var first = outcome.verdict.reasons.first else { return outcome }
        first.message += "; \(clause)"
        var copy = outcome
        copy.verdict.reasons[0] = first
        return copy
    }
}
