#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A one-line progress display on stderr, redrawn at most ten times a second, only when stderr
/// is a terminal (it carries no colour, so NO_COLOR does not turn it off).
struct AuditProgress {
    let enabled: Bool
    /// Input lines expected (arguments plus the file's lines, comments included), when known.
    var expected: Int?
    private var lastDraw: ContinuousClock.Instant?
    private var drawn = false

    init(enabled: Bool = isatty(STDERR_FILENO) == 1) { self.enabled = enabled }

    mutating func update(_ tally: AuditTally, running: Int, force: Bool = false) {
        guard enabled else { return }
        let now = ContinuousClock.now
        if !force, let lastDraw, now - lastDraw < .milliseconds(100) { return }
        lastDraw = now
        var text = "\(tally.line); \(running) running"
        if let expected, expected > 0 {
            let width = 24
            let filled = min(width, width * tally.finished / expected)
            text = "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "] " + text
        }
        write("\r\u{1B}[2K" + text)
        drawn = true
    }

    /// Clears the line so the next message starts clean.
    mutating func clear() {
        guard enabled, drawn else { return }
        write("\r\u{1B}[2K")
        drawn = false
    }

    private func write(_ text: String) {
        FileStream.standardError.write(text)
    }
}
