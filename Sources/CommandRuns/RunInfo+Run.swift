import ATSEngine
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
    package static var version: String { ToolVersion.current }  // the one place is Version.swift

    /// For a command that connects nowhere.
    package init(ruleSet: String?, trustStore: String?, ctLogList: String?, startedAt: Date = Date()) {
        self.init(toolVersion: RunInfo.version, openSSLVersion: OpenSSLVersion.text, ruleSet: ruleSet, trustStore: trustStore,
                  ctLogList: ctLogList, startedAt: startedAt)
    }

    /// For a run under `context`: its anchors and CT log list as the context names them.
    /// `ruleSet`: the id shown (nil for probe and pins, which judge no dictionary; "all" for the matrix).
    package init(context: RunContext, ruleSet: String?, startedAt: Date = Date()) {
        self.init(toolVersion: RunInfo.version, openSSLVersion: OpenSSLVersion.text, ruleSet: ruleSet,
                  trustStore: context.trust.description + "; " + RunInfo.trustData, ctLogList: context.trust.ctLogs.source, startedAt: startedAt)
        judgedAt = context.instantWasAsked ? context.instant : nil
    }

    /// The other data trust is judged with (docs/trust.md): Apple's system pinning list, and the
    /// public suffix list standing in for CFNetwork's top-level-domain list.
    package static var trustData: String {
        "Apple pinning list \(AppleSystemPinning.version); wildcards over public suffixes per \(PublicSuffixList.version) (ICANN section)"
    }
}
