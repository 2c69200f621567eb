import ATSReport
import ArgumentParser
import CommandRuns

/// `--fail-on` (audit, report, report --diff): CommandRuns' `AuditFailOnChoice`, parsed as the shells complete it.
extension AuditFailOnChoice: ExpressibleByArgument {
    package static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }
}
