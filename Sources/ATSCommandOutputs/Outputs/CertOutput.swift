import ATSReport
import ATSAdvice
import TextSupport
import TLSFacts

/// `cert`'s text, from its document (ATSContract's CertReport): the verdict, then one line per failure with its fix, then the chain as built.
package enum CertText {
    package static func render(_ report: CertReport) -> String {
        let judgement = report.judgement
        let kind = judgement.anchorKind.map { String($0.map { $0 == "-" ? " " : $0 }) }
        var lines: [String] = []
        let anchor = judgement.anchor.map { "'\(UntrustedText.escape($0.subject, limit: 200))'" }
        lines.append(judgement.trusted
            ? "TRUSTED: an Apple device would trust this chain for \(report.host)"
            : "NOT TRUSTED: an Apple device would not trust this chain for \(report.host) (\(judgement.failures.count) failure(s))")
        if let anchor, let kind { lines.append("anchor: \(anchor) (\(kind))") }
        if let order = report.bundleOrder { lines.append("ORDER: \(order)") }
        for failure in judgement.failures {
            // The reason already names the certificate (its index, role and subject).
            lines.append("FAIL [\(failure.rule)] \(failure.reason)")
            lines.append("  fix: \(failure.fix)")
            lines.append("  source: \(failure.source)")
        }
        for fix in report.serverFixes {
            lines.append("Server fix: \(UntrustedText.escape(fix.change, limit: 1000))")
            lines.append(contentsOf: ExceptionPlist.serverLines("nginx", fix.nginx).split(separator: "\n").map(String.init))
            lines.append(contentsOf: ExceptionPlist.serverLines("Apache", fix.apache).split(separator: "\n").map(String.init))
            if !fix.haproxy.isEmpty { lines.append(contentsOf: ExceptionPlist.serverLines("HAProxy", fix.haproxy).split(separator: "\n").map(String.init)) }
        }
        lines.append("chain\(judgement.anchor == nil ? " (as given)" : " (as built)"):")
        for (index, certificate) in judgement.chain.enumerated() {
            lines.append("  \(index): \(UntrustedText.escape(certificate.subject, limit: 200))")
        }
        lines += ForecastText.lines(window: report.forecastWindow, changes: report.forecast, renewal: report.renewal)
            .map { "FORECAST \(UntrustedText.escape($0))" }
        return lines.joined(separator: "\n") + "\n"
    }
}
