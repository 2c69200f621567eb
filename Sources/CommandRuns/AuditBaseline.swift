import ATSCommandOutputs
import ATSEngine
import ATSFiles
import ATSReport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport

/// `audit --baseline OLD`: the earlier run's sides, read and checked before any connection
/// (bad input is exit 64 at once), and the comparison once the run is done (AuditSink).
package enum AuditBaseline {
    /// nil without --baseline; `--fail-on new` and `absent` need one. `warn` says at once that
    /// a baseline is compared anyway.
    package static func read(_ path: String?, failOn: AuditFailOnChoice, run: RunInfo, compareAnyway: Bool,
                             warn: (String) -> Void) throws -> BaselineInput? {
        guard let path else {
            if failOn.needsBaseline {
                throw InputError(.badArgument, "--fail-on \(failOn.defaultValueDescription) compares with an earlier run: give it with --baseline OLD.jsonl")
            }
            return nil
        }
        let read = try BaselineReading.read(path, option: "--baseline", run: run)
        let differences = try BaselineReading.check(baseline: read.run, path: path, run: run, anyway: compareAnyway)
        // Said at once on stderr too (with --quiet as well): the comparison's own text comes at the end.
        if !differences.isEmpty {
            warn("NOT COMPARABLE, compared anyway (--compare-anyway): " + differences.map { UntrustedText.escape($0, limit: 600) }.joined(separator: "; "))
        }
        return BaselineInput(path: path, sides: read.sides, notComparable: differences)
    }
}
