import Foundation

/// A fresh directory under the system temporary directory (`TMPDIR`; Foundation's
/// `temporaryDirectory` reads it on Linux) for one test's files, removed when the value goes
/// away (or at once by `remove()`), whatever the test's outcome. The one way tests make
/// temporary files: its name starts with `atsprobe-`, so `.ci/run` finds any left behind
/// (docs/contributing.md). `withTemporaryDirectory` scopes one to a closure.
package final class TemporaryDirectory: @unchecked Sendable {
    package let url: URL

    /// The directory's path.
    package var path: String { url.path }

    package init(prefix: String = "atsprobe-test") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { remove() }

    /// The path of `name` inside the directory (the file need not exist).
    package func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Writes `name` and returns its path.
    @discardableResult
    package func write(_ name: String, _ text: String) throws -> String { try write(name, Data(text.utf8)) }

    @discardableResult
    package func write(_ name: String, _ bytes: [UInt8]) throws -> String { try write(name, Data(bytes)) }

    @discardableResult
    package func write(_ name: String, _ data: Data) throws -> String {
        let path = path(name)
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    package func remove() { try? FileManager.default.removeItem(at: url) }
}

/// Runs `body` with a fresh temporary directory and removes the directory when `body` returns
/// or throws.
package func withTemporaryDirectory<T>(prefix: String = "atsprobe-test", _ body: (TemporaryDirectory) throws -> T) throws -> T {
    let directory = try TemporaryDirectory(prefix: prefix)
    defer { directory.remove() }
    return try body(directory)
}

/// The same for an async `body`.
package func withTemporaryDirectory<T>(prefix: String = "atsprobe-test", _ body: (TemporaryDirectory) async throws -> T) async throws -> T {
    let directory = try TemporaryDirectory(prefix: prefix)
    defer { directory.remove() }
    return try await body(directory)
}

/// The XML declaration and the DOCTYPE of an XML property list, then the opening `<plist>`
/// tag (without a line end after it).
package let xmlPlistHead = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">
    """

/// A whole XML Info.plist around the content of its root dictionary.
package func infoPlistXML(_ rootContent: String) -> String {
    "\(xmlPlistHead)<dict>\(rootContent)</dict></plist>"
}
