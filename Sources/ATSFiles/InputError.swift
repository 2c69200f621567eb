/// A one-line error for bad input: printed as "atsprobe: <message>" and exit 64. Thrown by
/// the readers and writers here (a file that cannot be read or written is the user's input)
/// and by the command line.
package struct InputError: Error, CustomStringConvertible {
    package let message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}
