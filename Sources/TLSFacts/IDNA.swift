/// Host name checks and internationalised names to ASCII (RFC 3492 punycode, "xn--" labels).
/// Only what a client needs: lower-case, per-label punycode, LDH and length checks.
package enum IDNA {
    /// The ASCII form of a host name, or nil when it cannot be a DNS host name.
    package static func toASCII(_ name: String) -> String? {
        var text = name.lowercased()
        // Ideographic and full-width dots separate labels too (UTS 46).
        for dot in ["\u{3002}", "\u{FF0E}", "\u{FF61}"] { text = text.replacing(dot, with: ".") }
        let trailingDot = text.hasSuffix(".") && text.count > 1
        if trailingDot { text.removeLast() }
        let labels = text.split(separator: ".", omittingEmptySubsequences: false)
        var out: [String] = []
        for label in labels {
            guard !label.isEmpty else { return nil }
            let ascii: String
            if label.unicodeScalars.allSatisfy(\.isASCII) {
                ascii = String(label)
            } else {
                guard let encoded = punycodeEncode(String(label)) else { return nil }
                ascii = "xn--" + encoded
            }
            guard ascii.utf8.count <= 63,
                  ascii.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" }),
                  !ascii.hasPrefix("-"), !ascii.hasSuffix("-") else { return nil }
            out.append(ascii)
        }
        let result = out.joined(separator: ".") + (trailingDot ? "." : "")
        return result.utf8.count <= 253 ? result : nil
    }

    /// RFC 3492 section 6.3.
    static func punycodeEncode(_ input: String) -> String? {
        let base = 36, tMin = 1, tMax = 26, skew = 38, damp = 700
        let scalars = input.unicodeScalars.map { Int($0.value) }
        var output = scalars.filter { $0 < 0x80 }.map { Character(Unicode.Scalar(UInt8($0))) }
        let basicCount = output.count
        var handled = basicCount
        if basicCount > 0 { output.append("-") }
        var n = 0x80, delta = 0, bias = 72

        func adapt(_ delta: Int, _ count: Int, _ first: Bool) -> Int {
            var d = first ? delta / damp : delta / 2
            d += d / count
            var k = 0
            while d > ((base - tMin) * tMax) / 2 { d /= base - tMin; k += base }
            return k + (base - tMin + 1) * d / (d + skew)
        }
        func digit(_ d: Int) -> Character {
            Character(Unicode.Scalar(UInt8(d < 26 ? d + 97 : d + 22)))
        }

        while handled < scalars.count {
            guard let m = scalars.filter({ $0 >= n }).min() else { return nil }
            let (product, overflow) = (m - n).multipliedReportingOverflow(by: handled + 1)
            guard !overflow, delta <= Int(Int32.max) - product else { return nil }
            delta += product
            n = m
            for c in scalars {
                if c < n { delta += 1 }
                if c == n {
                    var q = delta
                    var k = base
                    while true {
                        let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                        if q < t { break }
                        output.append(digit(t + (q - t) % (base - t)))
                        q = (q - t) / (base - t)
                        k += base
                    }
                    output.append(digit(q))
                    bias = adapt(delta, handled + 1, handled == basicCount)
                    delta = 0
                    handled += 1
                }
            }
            delta += 1
            n += 1
        }
        return String(output)
    }
}
