#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport
import TLSFacts

/// Calendar days in UTC as `Date`s, without a Calendar or a locale: the rule dates
/// (2019-07-01, 2020-09-01, ...) and the CT log table are written this way.
enum UTCDay {
    /// Midnight UTC at the start of the given day (proleptic Gregorian calendar).
    static func date(_ year: Int, _ month: Int, _ day: Int) -> Date {
        Date(timeIntervalSince1970: TimeInterval(daysSinceEpoch(year, month, day)) * 86_400)
    }

    /// Howard Hinnant's days_from_civil (TLSFacts' CivilCalendar): exact for every Gregorian date.
    static func daysSinceEpoch(_ year: Int, _ month: Int, _ day: Int) -> Int {
        CivilCalendar.daysSinceEpoch(year: year, month: month, day: day)
    }
}
