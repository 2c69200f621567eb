import TextSupport
/// One rule for a line of a target list, whoever reads it (`diagnose --input`, `audit --input`):
/// blank lines are skipped, and a `#` at the start of the line or after a space or tab starts a
/// comment (`example.com  # production`). A `#` inside a URL (`https://host/#fragment`) is the
/// URL's own: the fragment is never sent, and Target drops it.
enum TargetLine {
    /// The target on `line`, trimmed; nil for a blank or comment-only line.
    static func content(_ line: some StringProtocol) -> String? {
        var previousIsSpace = true
        var end = line.endIndex
        for index in line.indices {
            let character = line[index]
            if character == "#" && previousIsSpace {
                end = index
                break
            }
            previousIsSpace = character == " " || character == "\t"
        }
        let trimmed = String(line[..<end]).trimmingWhitespace()
        return trimmed.isEmpty ? nil : trimmed
    }
}
