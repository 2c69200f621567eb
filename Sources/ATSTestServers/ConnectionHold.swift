import Foundation

/// Holds every connection's handshake until `connections` connections have arrived, or until
/// `deadline` seconds after the first one, whichever comes first (`TLSServerConfiguration.hold`).
/// A test reads how the hold ended: the server answers nothing before then, so a client that
/// makes a handshake only after another's answer cannot have made it while the hold lasted.
package struct HandshakeHold: Sendable {
    /// Connections to wait for before any handshake is answered.
    package var connections: Int
    /// Seconds from the first connection after which the hold ends anyway.
    package var deadline: Double

    package init(connections: Int, deadline: Double) {
        self.connections = connections
        self.deadline = deadline
    }
}

/// How a `HandshakeHold` ended.
package struct HoldRelease: Sendable, Equatable {
    /// Connections that had arrived when the hold ended.
    package var arrived: Int
    /// True when they reached the count, false when the deadline ended it.
    package var byCount: Bool
}

/// The hold's state, shared by the server's connection threads.
final class ConnectionHold: @unchecked Sendable {
    // @unchecked: every field is read and written under `condition`.
    private let hold: HandshakeHold
    private let condition = NSCondition()
    private var arrived = 0
    private var firstArrival: Date?
    private var release: HoldRelease?

    init(_ hold: HandshakeHold) { self.hold = hold }

    /// How the hold ended; nil while it lasts (or before any connection).
    var released: HoldRelease? {
        condition.lock()
        defer { condition.unlock() }
        return release
    }

    /// Counts a connection and blocks its thread until the hold ends (or the server stops).
    func arrive(isStopped: () -> Bool) {
        condition.lock()
        defer { condition.unlock() }
        arrived += 1
        let start = firstArrival ?? Date()
        firstArrival = start
        let end = start.addingTimeInterval(hold.deadline)
        while release == nil {
            if arrived >= hold.connections {
                release = HoldRelease(arrived: arrived, byCount: true)
            } else if Date() >= end || isStopped() {
                release = HoldRelease(arrived: arrived, byCount: false)
            } else {
                // Woken by the next arrival, or at the latest every 50 ms to see the deadline
                // and a stop.
                _ = condition.wait(until: min(end, Date().addingTimeInterval(0.05)))
                continue
            }
            condition.broadcast()
        }
    }
}
