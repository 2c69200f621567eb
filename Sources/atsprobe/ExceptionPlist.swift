import ATSDiagnostics
import ATSPolicy
import Foundation

/// The suggested exceptions as an Info.plist fragment: an NSAppTransportSecurity dictionary
/// with one NSExceptionDomains entry per host that needs one, written by Foundation's
/// PropertyListSerialization (keys sorted, XML escaped).
enum ExceptionPlist {
    static func dictionary(_ reports: [DiagnosticsReport]) -> [String: Any] {
        var domains: [String: Any] = [:]
        for report in reports {
            if case .exception(let domain, let exception, _) = report.suggestion {
                domains[domain] = exception.propertyList
            }
        }
        return domains.isEmpty ? [:] : ["NSExceptionDomains": domains]
    }

    static func render(_ reports: [DiagnosticsReport]) throws -> String {
        let root: [String: Any] = ["NSAppTransportSecurity": dictionary(reports)]
        let data = try PropertyListSerialization.data(fromPropertyList: root, format: .xml, options: 0)
        return String(decoding: data, as: UTF8.self)
    }

    /// `<key>domain</key><dict>...</dict>`, indented, to paste inside NSExceptionDomains.
    static func snippet(domain: String, exception: DomainException) -> String {
        guard let data = try? PropertyListSerialization.data(fromPropertyList: [domain: exception.propertyList], format: .xml, options: 0) else { return "" }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
        // Drop the XML header, <plist>, and the outer <dict> lines; keep the entry.
        guard let open = lines.firstIndex(of: "<dict>"), let close = lines.lastIndex(of: "</dict>"), open < close else { return "" }
        return lines[(open + 1)..<close].map { "    " + $0.replacingOccurrences(of: "\t", with: "    ").dropFirst(4) + "\n" }.joined()
    }
}
