import ArgumentParser
import ATSReport

/// `--junit-cases targets|tests` (audit, diagnose, report): ReportJUnit's two shapes
/// (docs/reports.md, "JUnit").
enum JUnitCaseChoice: String, ExpressibleByArgument, CaseIterable, Sendable {
    case targets, tests

    var cases: ReportJUnit.Cases {
        switch self {
        case .targets: .targets
        case .tests: .tests
        }
    }
}
