import ATSPolicy
import TextSupport
import TLSFacts

/// A position in the property list: dotted keys, "[n]" for array elements. Keys come from
/// the file, so each is escaped before it joins the path.
struct LintKeyPath: Hashable, Sendable, CustomStringConvertible {
    private(set) var description: String

    init(_ start: String = "") { description = start }

    func appending(_ key: String) -> LintKeyPath {
        let escaped = UntrustedText.escape(key, limit: 200)
        return LintKeyPath(description.isEmpty ? escaped : description + "." + escaped)
    }

    func appending(index: Int) -> LintKeyPath { LintKeyPath(description + "[\(index)]") }
}
