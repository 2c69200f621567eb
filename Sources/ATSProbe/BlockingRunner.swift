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
import Synchronization

/// Runs blocking work on a thread of its own, never on Swift's cooperative pool, and awaits it.
enum BlockingRunner {
    /// Handshake threads touch little stack (OpenSSL over memory BIOs); 1 MiB of address space
    /// is plenty, against glibc's 8 MiB default.
    static let stackSize = 1 << 20

    static func run<Value: Sendable>(watchdogSeconds: Double, onWatchdog: @escaping @Sendable () -> Value,
                                     work: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            let once = ResumeOnce(continuation)
            let watchdog = Watchdog.shared.schedule(after: watchdogSeconds) { once.resume(onWatchdog()) }
            let body: @Sendable () -> Void = {
                once.resume(work())
                Watchdog.shared.cancel(watchdog)
            }
            // No thread to be had (process limit): do the work here rather than lose it.
            if !startDetachedThread(body) { body() }
        }
    }

    /// Starts `body` on a new detached POSIX thread; false when the system refuses one.
    private static func startDetachedThread(_ body: @escaping @Sendable () -> Void) -> Bool {
        final class Box: Sendable {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, stackSize)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(&thread, &attributes, { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            box.body()
            return nil
        }, box)
        if started != 0 { Unmanaged<Box>.fromOpaque(box).release() }
        return started == 0
    }
}
