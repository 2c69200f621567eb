/// A one-line error for bad input: printed as "atsprobe: <message>" and exit 64. Thrown by
/// the readers and writers here (a file that cannot be read or written is the user's input)
/// and by the command line.
package struct InputError: Error, CustomStringConvertible {
    package let message: String
    /// The input could not be read because this machine ran out of descriptors or memory
    /// (`BoundedFile.isResourceExhaustion`): the same one line, but exit 70, not 64.
    package let isLocalFailure: Bool
    package init(_ message: String, localFailure: Bool = false) {
        self.message = message
        isLocalFailure = localFailure
    }
    package var description: String { message }
}
