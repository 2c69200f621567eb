#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport

/// `--at`: the instant certificates are judged at, as the user wrote it. Exactly two forms are
/// read, and nothing is rolled over into a neighbouring day, hour or minute:
///
/// - an ISO 8601 calendar date, `YYYY-MM-DD`: midnight UTC of that day;
/// - an RFC 3339 date-time (section 5.6), `YYYY-MM-DDTHH:MM[:SS[.fraction]]` then `Z` or
///   `+HH:MM`/`-HH:MM`. Seconds may be left out (ISO 8601 reduced precision, `T12:00Z`). As RFC
///   3339 allows, the `T` may be `t` or a space and the `Z` may be `z`.
///
/// Refused, each with its reason: a day the month does not have (`2025-02-30`), an hour past 23,
/// a minute or second past 59 (a leap second cannot be judged at: there is no such instant in
/// POSIX time), an offset past 23:59 (RFC 3339's `time-numoffset`), a date-time without an
/// offset (a local time names no single instant), a year outside 0001-9999, and anything after
/// the offset.
package struct RequestedInstant: Sendable, Hashable {
    package let date: Date

    /// Why the text is not an instant, in a few words (the caller names the option).
    package struct ParseError: Error, Sendable, CustomStringConvertible {
        /// What is wrong, for code: callers compare this, never `reason`'s text.
        package enum Code: String, Sendable, Hashable, CaseIterable {
            /// Not RFC 3339's shape: a part missing, or text after the end.
            case malformed
            /// A field out of its range: month 13, February 30, hour 24, offset 24:00.
            case outOfRange
            /// Second 60: no POSIX instant.
            case leapSecond
            /// A time without 'Z' or an offset names no single instant.
            case noOffset
        }

        package let code: Code
        /// For people, in a few words (the caller names the option).
        package let reason: String

        init(_ code: Code, reason: String) {
            self.code = code
            self.reason = reason
        }

        package var description: String { reason }
    }

    package init(parsing text: String) throws(ParseError) {
        var reader = Reader(Array(text.utf8))
        let year = try reader.number(digits: 4, "a four-digit year")
        try reader.expect(UInt8(ascii: "-"), "'-' after the year")
        let month = try reader.number(digits: 2, "a two-digit month")
        try reader.expect(UInt8(ascii: "-"), "'-' after the month")
        let day = try reader.number(digits: 2, "a two-digit day")
        guard year >= 1 else { throw ParseError(.outOfRange, reason: "year 0000 is outside 0001-9999") }
        guard (1...12).contains(month) else { throw ParseError(.outOfRange, reason: "month \(month) does not exist") }
        let length = Self.daysIn(month: month, year: year)
        guard (1...length).contains(day) else {
            throw ParseError(.outOfRange, reason: "\(Self.monthNames[month - 1]) \(year) has \(length) days, not \(day)")
        }
        var seconds = CivilCalendar.daysSinceEpoch(year: year, month: month, day: day) * 86_400
        var fraction = 0.0
        if !reader.atEnd {
            guard let separator = reader.next(), [UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: " ")].contains(separator) else {
                throw ParseError(.malformed, reason: "expected 'T' and a time after the date, or nothing")
            }
            let hour = try reader.number(digits: 2, "a two-digit hour")
            try reader.expect(UInt8(ascii: ":"), "':' after the hour")
            let minute = try reader.number(digits: 2, "two-digit minutes")
            var second = 0
            if reader.peek == UInt8(ascii: ":") {
                _ = reader.next()
                second = try reader.number(digits: 2, "two-digit seconds")
                if reader.peek == UInt8(ascii: ".") {
                    _ = reader.next()
                    var digits = 0, scale = 0.1
                    while let digit = reader.peekDigit {
                        _ = reader.next()
                        fraction += Double(digit) * scale
                        scale /= 10
                        digits += 1
                    }
                    guard digits > 0 else { throw ParseError(.malformed, reason: "expected digits after '.'") }
                }
            }
            guard hour <= 23 else { throw ParseError(.outOfRange, reason: "hour \(hour) does not exist (00-23)") }
            guard minute <= 59 else { throw ParseError(.outOfRange, reason: "minute \(minute) does not exist (00-59)") }
            guard second <= 59 else {
                throw second == 60 ? ParseError(.leapSecond, reason: "a leap second (:60) is no instant POSIX time can judge at")
                    : ParseError(.outOfRange, reason: "second \(second) does not exist (00-59)")
            }
            seconds += hour * 3600 + minute * 60 + second
            guard let zone = reader.next() else {
                throw ParseError(.noOffset, reason: "a time needs 'Z' or an offset such as +01:00 (a local time names no single instant)")
            }
            switch zone {
            case UInt8(ascii: "Z"), UInt8(ascii: "z"):
                break
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                let offsetHours = try reader.number(digits: 2, "a two-digit offset hour")
                try reader.expect(UInt8(ascii: ":"), "':' in the offset (+HH:MM)")
                let offsetMinutes = try reader.number(digits: 2, "two-digit offset minutes")
                guard offsetHours <= 23, offsetMinutes <= 59 else {
                    throw ParseError(.outOfRange, reason: "offset \(offsetHours):\(offsetMinutes) does not exist (at most 23:59)")
                }
                let offset = offsetHours * 3600 + offsetMinutes * 60
                seconds += zone == UInt8(ascii: "+") ? -offset : offset
            default:
                throw ParseError(.malformed, reason: "expected 'Z' or an offset such as +01:00 after the time")
            }
        }
        guard reader.atEnd else { throw ParseError(.malformed, reason: "unexpected text after the offset") }
        date = Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    /// The instant as the reports print it: UTC, whole seconds (`2025-01-31T12:00:00Z`).
    package static func iso(_ date: Date) -> String {
        CivilCalendar.timestamp(secondsSinceEpoch: date.timeIntervalSince1970)
    }

    static let monthNames = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                             "October", "November", "December"]

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private struct Reader {
        let bytes: [UInt8]
        var position = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { position >= bytes.count }
        var peek: UInt8? { atEnd ? nil : bytes[position] }
        var peekDigit: Int? { peek.flatMap { (0x30...0x39).contains($0) ? Int($0 - 0x30) : nil } }

        mutating func next() -> UInt8? {
            guard let byte = peek else { return nil }
            position += 1
            return byte
        }

        mutating func number(digits: Int, _ what: String) throws(ParseError) -> Int {
            var value = 0
            for _ in 0..<digits {
                guard let digit = peekDigit else { throw ParseError(.malformed, reason: "expected \(what)") }
                position += 1
                value = value * 10 + digit
            }
            return value
        }

        mutating func expect(_ byte: UInt8, _ what: String) throws(ParseError) {
            guard next() == byte else { throw ParseError(.malformed, reason: "expected \(what)") }
        }
    }
}
