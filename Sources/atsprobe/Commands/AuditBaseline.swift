import ArgumentParser
import ATSEngine

/// `--fail-on` (audit, report, report --diff): ATSEngine's `AuditFailOnChoice`, parsed as the shells complete it.
extension AuditFailOnChoice: ExpressibleByArgument {
    package static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }
}
