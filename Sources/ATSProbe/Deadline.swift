#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A point on the monotonic clock by which a probe must be done.
struct Deadline: Sendable {
    let end: Double

    init(secondsFromNow seconds: Double) {
        end = Deadline.now() + max(0, seconds)
    }

    static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    var hasPassed: Bool { Deadline.now() >= end }

    /// What is left, as a poll(2) timeout in milliseconds (0 once passed).
    var pollMilliseconds: Int32 {
        let left = (end - Deadline.now()) * 1000
        return left <= 0 ? 0 : Int32(min(left.rounded(.up), Double(Int32.max)))
    }
}

/// Milliseconds since a monotonic start time.
struct Stopwatch: Sendable {
    let start = Deadline.now()
    var milliseconds: Double { (Deadline.now() - start) * 1000 }
}
