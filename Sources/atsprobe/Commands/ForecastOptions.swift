import ArgumentParser
import ATSEngine
import ATSFiles
import TextSupport

/// `--forecast DURATION` (diagnose, audit): when each target's verdict changes within that
/// horizon, from what the run observed (docs/forecast.md). Without it, no forecast, unless
/// `audit --fail-on expiring:DURATION` asks for one that far ahead.
struct ForecastOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Forecast each target's verdict this far ahead from what was observed (no new handshake): 90d, 12w, 36h, 3600s. Off by default.", valueName: "duration"),
            completion: .list(["30d", "90d", "180d", "365d"]))
    var forecast: String?

    /// The horizon in seconds: --forecast's, or at least `atLeast` (--fail-on expiring:DURATION);
    /// it goes into the run's one `RunContext` (`ConnectionOptions.context(ruleSet:forecastHorizonSeconds:)`).
    func horizonSeconds(atLeast: Int? = nil) throws -> Int? {
        let asked = try forecast.map { try ForecastOptions.seconds($0, option: "--forecast") }
        switch (asked, atLeast) {
        case (let asked?, let least?): return max(asked, least)
        case (let asked?, nil): return asked
        case (nil, let least): return least
        }
    }

    /// The run context's limit (ten years), which checks the horizon again.
    static let maximumSeconds = RunContext.maximumForecastHorizonSeconds

    /// "90d" (days), "12w" (weeks), "36h", "30m", "3600s" or a bare number of seconds.
    static func seconds(_ text: String, option: String) throws -> Int {
        guard let seconds = DurationText.seconds(text, maximum: maximumSeconds) else {
            throw InputError(.badArgument, "\(option) '\(UntrustedText.escape(text, limit: 40))' is not a duration between 1s and 3650d (e.g. 90d, 12w, 36h, 3600s)")
        }
        return seconds
    }
}
