/// A one-line error for bad input: printed as "atsprobe: <message>", exit 64 (70 for
/// `.localResources`). Thrown by the readers and writers here (a file that cannot be read or
/// written is the user's input) and by the command line.
package struct InputError: Error, CustomStringConvertible {
    /// What is wrong, for code: callers compare this (the exit status is chosen by it), never
    /// `message`'s text.
    package enum Code: Sendable, Hashable, CaseIterable {
        /// An argument or option the command cannot take: its form, its range, a combination.
        case badArgument
        /// A file's or stream's contents are not what the command reads (not UTF-8, not records,
        /// not a property list, a line given twice).
        case badContents
        /// A file that cannot be read, written or listed: missing, not permitted, too large, not
        /// a regular file.
        case fileAccess
        /// Another process held a file's lock past the wait (`FileLock`).
        case locked
        /// A baseline and a run that cannot be compared (other options or anchors); `--compare-anyway` overrides.
        case incomparable
        /// This machine ran out of descriptors or memory reading the input
        /// (`BoundedFile.isResourceExhaustion`): the same one line, but exit 70, not 64.
        case localResources

        /// `.localResources` when a read failed for lack of descriptors or memory, else `.fileAccess`.
        package static func reading(outOfResources: Bool) -> Code { outOfResources ? .localResources : .fileAccess }
    }

    package let code: Code
    /// For people: one line naming the input.
    package let message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { message }
}
