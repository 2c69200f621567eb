/// Days and dates of the proleptic Gregorian calendar in UTC, exact for every date (Howard
/// Hinnant's days_from_civil and civil_from_days): the one copy that `--at`'s reader, the
/// certificate rules' dates, the JSON documents' dates (written and read back) and every
/// "2027-01-31T12:00:00Z" the outputs print use. Foundation's ISO 8601 styles switch to the
/// Julian calendar before 1582-10-15 (ICU's GregorianCalendar), so `--at 1582-10-14` printed
/// 1582-10-04 (issue 40, item 10): none of them is used for a date atsprobe shows or reads.
package enum CivilCalendar {
    /// Days from 1970-01-01 to the date (negative before it).
    package static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date `days` after 1970-01-01: (year, month, day).
    package static func civil(days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// "2027-01-31T12:00:00Z" for whole seconds since 1970 (rounded down).
    package static func timestamp(secondsSinceEpoch value: Double) -> String {
        let seconds = Int(value.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let within = seconds - days * 86_400
        return day(days: days) + "T\(two(within / 3600)):\(two(within / 60 % 60)):\(two(within % 60))Z"
    }

    /// "2027-01-31" for the day `days` after 1970-01-01.
    package static func day(days: Int) -> String {
        let (year, month, day) = civil(days: days)
        let yearText = String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year)
        return "\(yearText)-\(two(month))-\(two(day))"
    }

    /// `seconds` since 1970 moved by `months` calendar months, the time of day kept; a day the
    /// target month lacks is its last day (January 31 + 1 month is February 28 or 29), as
    /// Foundation's Calendar adds months, but proleptic Gregorian for every year.
    package static func secondsSinceEpoch(_ seconds: Double, addingMonths months: Int) -> Double {
        let whole = seconds.rounded(.down)
        let days = Int(whole) >= 0 ? Int(whole) / 86_400 : (Int(whole) - 86_399) / 86_400
        let within = seconds - Double(days * 86_400)
        let (year, month, day) = civil(days: days)
        let index = year * 12 + (month - 1) + months
        let newYear = index >= 0 ? index / 12 : (index - 11) / 12
        let newMonth = index - newYear * 12 + 1
        let length = switch newMonth {
        case 2: (newYear % 4 == 0 && newYear % 100 != 0) || newYear % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
        return Double(daysSinceEpoch(year: newYear, month: newMonth, day: min(day, length)) * 86_400) + within
    }

    private static func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
}
