import ArgumentParser
import ATSEngine

/// atsprobe's exit codes are ATSEngine's `ExitStatus` (docs/exit-codes.md); argument-parser ends the process with one.
extension ExitStatus {
    var exitCode: ExitCode { ExitCode(rawValue) }
}
