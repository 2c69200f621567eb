import ATSReport
import ArgumentParser
import CommandRuns

/// atsprobe's exit codes are CommandRuns' `ExitStatus` (docs/exit-codes.md); argument-parser ends the process with one.
extension ExitStatus {
    var exitCode: ExitCode { ExitCode(rawValue) }
}
