import TextSupport
import TLSFacts

/// One rule for a line of a target list, whoever reads it (`diagnose --input`, `audit --input`):
/// blank lines are skipped, and a `#` at the start of the line or after a space or tab starts a
/// comment (`example.com  # production`). A `#` inside a URL (`https://host/#fragment`) is the
/// URL's own: the fragment is never sent, and Target drops it.
package enum TargetLine {
    /// The target on `line`, trimmed; nil for a blank or comment-only line.
    package static func content(_ line: some StringProtocol) -> String? {
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

/// Target lists from --input files: one target a line; blank lines and `#` comments skipped.
package enum TargetList {
    /// Target lists are short; this bounds a wrong argument (a disk image, /dev/zero).
    package static let maximumBytes = 16 * 1024 * 1024

    /// `option` is how messages name the file's source: the command line passes its option
    /// ("--input", "--hosts-only"); without one it is "the target list".
    package static func read(_ path: String, option: String? = nil) throws(InputError) -> [String] {
        let source = option ?? "the target list"
        let bytes = try FileStream.readAll(path, limit: maximumBytes, what: "\(source) ")
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw InputError(.badContents, "\(source) '\(UntrustedText.escape(path, limit: 400))' is not UTF-8 text")
        }
        // A byte-order mark (Windows editors write one) is not part of the first target.
        let withoutMark = text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text
        return withoutMark.split(whereSeparator: \.isNewline).compactMap { TargetLine.content($0) }
    }
}
