import ATSContract
import ATSFiles
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport

/// A baseline as the comparison reads it (`RunRecords.sides`, streamed; a compact baseline
/// too), checked against this run before anything is compared: `audit --baseline` and
/// `report --diff` read it the one way.
package enum BaselineReading {
    /// `path`'s sides and run. A missing file is one line naming the command that records it
    /// with `run`'s options (docs/ci.md's first step); any other bad file as the reader says.
    package static func read(_ path: String, option: String, run: RunInfo?) throws -> (sides: [BaselineComparison.Side], run: RunInfo?) {
        if path != "-", !FileManager.default.fileExists(atPath: path) {
            throw InputError(.fileAccess, "\(option) '\(UntrustedText.escape(path, limit: 300))': no such file; record the first baseline with this run's options: "
                             + Comparability.recordCommand(baseline: path, run: run))
        }
        return try RunRecords.sides([path])
    }

    /// The differences between the baseline and this run: refused (64, one line with the
    /// command that records a comparable baseline) unless `anyway`, then returned for every
    /// output to say first.
    package static func check(baseline: RunInfo?, path: String, run: RunInfo?, anyway: Bool) throws -> [String] {
        let differences = Comparability.differences(baseline: baseline, run: run)
        if !differences.isEmpty, !anyway { throw InputError(.incomparable, Comparability.refusal(differences, baseline: path, run: run)) }
        return differences
    }
}
