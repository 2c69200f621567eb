import ATSPolicy
import ATSProbe
import ATSReport
import ATSTrust
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The run's metadata (ATSReport's `RunInfo`, docs/json-schema.md "run") from this binary's
/// version, its OpenSSL and the command's options.
extension RunInfo {
    static var version: String { ToolVersion.current }  // the one place is Version.swift

    /// For a command that connects nowhere.
    init(ruleSet: String?, trustStore: String?, ctLogList: String?, startedAt: Date = Date()) {
        self.init(toolVersion: RunInfo.version, openSSLVersion: OpenSSLVersion.text, ruleSet: ruleSet, trustStore: trustStore,
                  ctLogList: ctLogList, startedAt: startedAt)
    }

    init(ruleSet: String?, connection: ConnectionOptions, logs: CTLogList, startedAt: Date = Date()) {
        var anchors = [connection.trustStore == .apple ? AppleRootStore.description : SystemStoreName.description]
        if let file = connection.caFile { anchors.append("--ca-file \(file)") }
        if let directory = connection.caDir { anchors.append("--ca-dir \(directory)") }
        self.init(toolVersion: RunInfo.version, openSSLVersion: OpenSSLVersion.text, ruleSet: ruleSet,
                  trustStore: anchors.joined(separator: " + ") + "; " + RunInfo.trustData, ctLogList: logs.source, startedAt: startedAt)
        judgedAt = try? connection.evaluationDate()
    }

    /// The other data trust is judged with (docs/trust.md): Apple's system pinning list, and the
    /// public suffix list standing in for CFNetwork's top-level-domain list.
    static var trustData: String {
        "Apple pinning list \(AppleSystemPinning.version); wildcards over public suffixes per \(PublicSuffixList.version) (ICANN section)"
    }
}
