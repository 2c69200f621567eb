import Foundation

/// A fresh directory under the system temporary directory for one test's files, removed when the
/// value goes away (or at once by `remove()`), whatever the test's outcome.
public final class TemporaryDirectory: @unchecked Sendable {
    public let url: URL

    public init(prefix: String = "atsprobe-test") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { remove() }

    /// The path of `name` inside the directory (the file need not exist).
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Writes `name` and returns its path.
    @discardableResult
    public func write(_ name: String, _ text: String) throws -> String { try write(name, Data(text.utf8)) }

    @discardableResult
    public func write(_ name: String, _ bytes: [UInt8]) throws -> String { try write(name, Data(bytes)) }

    @discardableResult
    public func write(_ name: String, _ data: Data) throws -> String {
        let path = path(name)
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    public func remove() { try? FileManager.default.removeItem(at: url) }
}

/// A whole XML Info.plist around the content of its root dictionary.
public func infoPlistXML(_ rootContent: String) -> String {
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0"><dict>\(rootContent)</dict></plist>
    """
}
