// Small formatters for what `String(format:)` did; that initializer lives in Foundation proper,
// which atsprobe does not link (see docs/performance.md, "Memory").

extension Sequence where Element == UInt8 {
    /// Upper-case hex, two digits a byte ("%02X" each), joined by `separator`.
    package func hexEncoded(separator: String = "") -> String {
        map { byte in
            let digits = String(byte, radix: 16, uppercase: true)
            return byte < 0x10 ? "0" + digits : digits
        }.joined(separator: separator)
    }
}

extension Double {
    /// Fixed-point text with `fractionDigits` digits after the point, rounded half away from
    /// zero ("%.1f"); non-finite values print as Swift spells them.
    package func fixed(_ fractionDigits: Int) -> String {
        guard isFinite else { return String(self) }
        var scale = 1.0
        for _ in 0..<fractionDigits { scale *= 10 }
        let scaled = (abs(self) * scale).rounded()
        guard scaled < 9e15 else { return String(self) }
        let units = Int64(scaled)
        let whole = units / Int64(scale)
        let sign = self < 0 && units != 0 ? "-" : ""
        guard fractionDigits > 0 else { return sign + String(whole) }
        let fraction = String(units % Int64(scale))
        return sign + String(whole) + "." + String(repeating: "0", count: fractionDigits - fraction.count) + fraction
    }
}
