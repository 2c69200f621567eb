extension String {
    /// Left-aligned in a column `width` characters wide (never cut).
    package func padded(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
