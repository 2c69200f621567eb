import ATSFiles
import ATSEngine
import ATSCommandOutputs
import ATSReport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport
import TLSFacts
#if canImport(Glibc)
import Glibc
#endif

/// The live status line on stderr, only when stderr is a terminal and --quiet is off (it carries
/// no colour, so NO_COLOR does not turn it off): a bar, the counts, the rate, and the targets
/// still running with their elapsed time. It is redrawn after every result line (so output
/// never leaves it erased) and by a ticker, so a silent host still shows its time growing.
package struct AuditProgress: AuditProgressDisplay {
    package let enabled: Bool
    /// Targets expected (arguments plus the file's target lines; blank lines and comments are
    /// not targets), when known.
    package var expected: Int?
    private var lastDraw: ContinuousClock.Instant?
    private var drawn = false
    private let begun = ContinuousClock.now
    /// Targets in flight, by input position: the name shown and when it started.
    private var running: [Int: (name: String, start: ContinuousClock.Instant)] = [:]

    package init(enabled: Bool) { self.enabled = enabled }

    package static func onTerminal(quiet: Bool) -> AuditProgress {
        AuditProgress(enabled: !quiet && isatty(STDERR_FILENO) == 1)
    }

    package mutating func started(_ id: Int, name: String) {
        guard enabled else { return }
        running[id] = (name, .now)
    }

    package mutating func finished(_ id: Int) {
        running[id] = nil
    }

    /// Redraws, at most ten times a second unless `force` (after a result line cleared it).
    package mutating func update(_ tally: AuditTally, force: Bool = false) {
        guard enabled else { return }
        let now = ContinuousClock.now
        if !force, drawn, let lastDraw, now - lastDraw < .milliseconds(100) { return }
        lastDraw = now
        write("\r\u{1B}[2K" + line(tally, now: now))
        drawn = true
    }

    /// The status line, cut to the terminal's width so it never wraps (a wrapped line cannot be
    /// redrawn in place).
    package func line(_ tally: AuditTally, now: ContinuousClock.Instant) -> String {
        // Most telling first, since the line is cut to the terminal's width: how far, what is
        // still running (a silent host shows here with its time), the counts, the rate.
        var parts: [String] = []
        let done = tally.finished
        if let expected, expected > 0 {
            let width = 20
            let filled = min(width, width * done / expected)
            parts.append("[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "] \(done)/\(expected)")
        }
        if !running.isEmpty {
            let oldest = running.values.sorted { $0.start < $1.start }
            let shown = oldest.prefix(3).map { "\($0.name) \(AuditProgress.seconds(now - $0.start).fixed(0)) s" }
            parts.append("\(running.count) running: " + shown.joined(separator: ", ") + (running.count > 3 ? ", ..." : ""))
        }
        parts.append(tally.line)
        let seconds = AuditProgress.seconds(now - begun)
        if seconds >= 1 { parts.append("\((Double(done) / seconds).fixed(1))/s") }
        return String(parts.joined(separator: "; ").prefix(max(20, AuditProgress.columns() - 1)))
    }

    /// Clears the line so the next message starts clean.
    package mutating func clear() {
        guard enabled, drawn else { return }
        write("\r\u{1B}[2K")
        drawn = false
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// The terminal's width (TIOCGWINSZ on stderr), else $COLUMNS, else 80.
    package static func columns() -> Int {
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init) ?? 80
    }

    private func write(_ text: String) {
        FileStream.standardError.write(text)
    }
}
