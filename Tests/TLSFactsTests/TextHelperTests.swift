import Foundation
import Testing
import TextSupport
import TLSFacts

@Suite("Text helpers that replace Foundation's")
struct TextHelperTests {
    @Test func trimmingWhitespace() {
        #expect("  a b \t\r\n".trimmingWhitespace() == "a b")
        #expect(" \n ".trimmingWhitespace() == "")
        #expect("x".trimmingWhitespace() == "x")
        #expect("\u{00A0}wide\u{2003}".trimmingWhitespace() == "wide")
    }

    @Test func hexEncoded() {
        #expect([UInt8]([0x00, 0x0A, 0xFF]).hexEncoded() == "000AFF")
        #expect([UInt8]([0xAB, 0x01]).hexEncoded(separator: ":") == "AB:01")
        #expect([UInt8]().hexEncoded() == "")
    }

    @Test(arguments: [(0.0, 0, "0"), (27.6, 0, "28"), (0.04, 1, "0.0"), (0.05, 1, "0.1"), (12.345, 1, "12.3"),
                      (3.0, 2, "3.00"), (-1.25, 1, "-1.3"), (-0.01, 1, "0.0"), (1234567.891, 2, "1234567.89")])
    func fixed(value: Double, digits: Int, expected: String) {
        #expect(value.fixed(digits) == expected)
        if value >= 0, value != 0.05, value != 0.04 {
            #expect(value.fixed(digits) == String(format: "%.\(digits)f", value), "agrees with printf")
        }
    }
}
