#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Calendar days in UTC as `Date`s, without a Calendar or a locale: the rule dates
/// (2019-07-01, 2020-09-01, ...) and the CT log table are written this way.
enum UTCDay {
    /// Midnight UTC at the start of the given day (proleptic Gregorian calendar).
    static func date(_ year: Int, _ month: Int, _ day: Int) -> Date {
        Date(timeIntervalSince1970: TimeInterval(daysSinceEpoch(year, month, day)) * 86_400)
    }

    /// Howard Hinnant's days_from_civil: exact for every Gregorian date.
    static func daysSinceEpoch(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
