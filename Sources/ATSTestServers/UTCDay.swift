import TextSupport
import Foundation
import TLSFacts

/// Midnight UTC of a civil day, by TextSupport's `CivilCalendar` (the project's one calendar): the
/// fixed instants tests issue certificates and judge them at.
package func utcMidnight(_ year: Int, _ month: Int, _ day: Int) -> Date {
    Date(timeIntervalSince1970: Double(CivilCalendar.daysSinceEpoch(year: year, month: month, day: day)) * 86_400)
}
