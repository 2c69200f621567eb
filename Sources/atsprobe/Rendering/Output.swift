#if canImport(FoundationEssentials)
import ATSFiles
import FoundationEssentials
#else
import Foundation
#endif
import ATSReport
import TLSFacts

/// Where results go: stdout, or the --output file. Diagnostics and progress go to stderr.
struct OutputSink {
    private var path: String?
    private var buffer: [UInt8] = []

    init(path: String?) { self.path = path }

    mutating func write(_ text: String) { write(bytes: Array(text.utf8)) }

    mutating func write(bytes: [UInt8]) {
        if path == nil {
            FileStream.standardOutput.write(bytes)
        } else {
            buffer += bytes
        }
    }

    mutating func writeLine(_ text: String = "") { write(text + "\n") }

    /// `result` in `format` (one its registry renders: `--format` parses no other), its
    /// warnings on standard error.
    mutating func write<Result: RenderedResult>(_ result: Result, as format: OutputFormat, options: RenderOptions = RenderOptions()) throws {
        let rendered: Rendered
        do {
            rendered = try result.rendered(format, options: options)
        } catch let failed as RenderingFailed {
            FileStream.standardError.write(failed.standardError)
            throw failed.error
        }
        if let bytes = rendered.bytes { write(bytes: bytes) } else { write(rendered.text) }
        FileStream.standardError.write(rendered.standardError)
    }

    /// Writes the --output file, when there is one. Throws an InputError naming the file.
    func finish() throws {
        guard let path else { return }
        try FileStream.writeAtomically(buffer, to: path)
    }
}

enum Diagnostics {
    static func warn(_ message: String) {
        FileStream.standardError.write("atsprobe: \(message)\n")
    }
}
