import ATSContract
import TextSupport

/// `--fail-on` (audit, report, report --diff): the engine's levels (none, unreachable,
/// exception, any); `new`, which with a baseline fails only on what got worse (docs/audit.md);
/// `absent`, as `new` and also when a baseline target is no longer audited (removed or
/// commented out of the input); `expiring:DURATION`, as `any` (with a baseline: as `new`) and
/// also when a target's forecast loads worse within DURATION.
package enum AuditFailOnChoice: Sendable, Equatable {
    case level(AuditFailOn)
    case new
    case absent
    /// `expiring:DURATION`: 1 also when a target's forecast gets worse within DURATION
    /// (docs/forecast.md); forecasts at least that far ahead.
    case expiring(seconds: Int)

    package init?(argument: String) {
        if argument.lowercased() == "new" { self = .new; return }
        if argument.lowercased() == "absent" { self = .absent; return }
        if argument.lowercased().hasPrefix("expiring:") {
            guard let seconds = DurationText.seconds(String(argument.dropFirst("expiring:".count)), maximum: ForecastWindowJSON.maximumHorizonSeconds) else { return nil }
            self = .expiring(seconds: seconds)
            return
        }
        guard let level = AuditFailOn(rawValue: argument.lowercased()) else { return nil }
        self = .level(level)
    }

    package var defaultValueDescription: String {
        switch self {
        case .level(let level): level.rawValue
        case .new: "new"
        case .absent: "absent"
        case .expiring(let seconds): "expiring:\(seconds)s"
        }
    }

    /// The horizon `expiring:DURATION` needs forecast.
    package var expiringSeconds: Int? {
        if case .expiring(let seconds) = self { return seconds }
        return nil
    }

    /// Whether the choice compares with a baseline (new, absent).
    package var needsBaseline: Bool { self == .new || self == .absent }

    package static var allValueStrings: [String] { AuditFailOn.allCases.map(\.rawValue) + ["new", "absent", "expiring:DURATION"] }
}
