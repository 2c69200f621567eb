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
// ares.h includes <sys/socket.h>, and Clang then gives the socket type constants
// (SOCK_STREAM, SOCK_NONBLOCK, SOCK_CLOEXEC) to the CAres module: they are found through it.
internal import CAres
import TextSupport
import TLSFacts

/// A connected, non-blocking TCP socket. Owns the descriptor. Every wait is an await on the
/// reactor, bounded by the caller's deadline and ended at once by cancellation.
final class TCPConnection: @unchecked Sendable {  // used by one task at a time
    let descriptor: Int32
    /// The numeric address connected to ("127.0.0.1", "::1").
    let peerAddress: String

    private init(descriptor: Int32, peerAddress: String) {
        self.descriptor = descriptor
        self.peerAddress = peerAddress
    }

    deinit { close(descriptor) }

    /// A connection asked for outside any runtime (`ProbeRuntime.perform`): refused, never run
    /// on a runtime nobody chose.
    static let unbound = ProbeFailure(kind: .cancelled, detail: "not connected: no probe runtime (connect inside a Prober's run)")

    /// RFC 8305's "Connection Attempt Delay": the next address is tried this long after the
    /// previous attempt started, or at once when it fails.
    static let attemptDelay = 0.25

    /// Resolves `host` (A and AAAA at once, on the reactor, within the deadline) and connects with
    /// Happy Eyeballs (RFC 8305): attempts start as addresses arrive, families interleaved, a new
    /// attempt every 250 ms or as soon as one fails; the first connection to complete wins and
    /// the others are closed. Numeric hosts are never looked up. Not inlined: its frame (and its
    /// task group's) exists only while it connects, not for the whole life of the probe's task.
    @inline(never)
    /// `admission`: the name the target was asked by and the check its connections pass
    /// (`ProbeOptions.connectionAdmission`): a refused name is not looked up, a refused address
    /// not connected to.
    static func connect(host: String, port: Int, deadline: Deadline, resolver: Resolver? = nil,
                        admission: (name: String, check: ConnectionAdmission)? = nil) async throws(ProbeFailure) -> TCPConnection {
        if let admission, let refusal = admission.check.host(admission.name) {
            throw ProbeFailure(kind: .other, detail: "not connected: \(refusal)")
        }
        var admits: (@Sendable (Address) -> String?)? = nil
        if let admission {
            let name = admission.name, check = admission.check
            admits = { @Sendable (address: Address) -> String? in check.address(name, address.text) }
        }
        if Target.isIPAddress(host) {
            var addresses = try numericAddresses(host: host, port: port)
            if let admits {
                let refusals = addresses.compactMap(admits)
                addresses = addresses.filter { admits($0) == nil }
                if addresses.isEmpty, let refusal = refusals.first { throw ProbeFailure(kind: .other, detail: refusal) }
            }
            return try await connect(to: addresses, port: port, deadline: deadline)
        }
        guard let runtime = ProbeRuntime.current else { throw unbound }
        let resolver = resolver ?? runtime.resolver
        let filter = admits
        return try await withTaskExecutorPreference(runtime.executor) { () async throws(ProbeFailure) -> TCPConnection in
            try await happyEyeballs([], resolving: (resolver, host), port: port, deadline: deadline, admits: filter)
        }
    }

    /// Happy Eyeballs over `addresses` as given (tests).
    static func connect(addresses: [Address], port: Int, deadline: Deadline) async throws(ProbeFailure) -> TCPConnection {
        try await connect(to: addresses, port: port, deadline: deadline)
    }

    /// Happy Eyeballs over `addresses`, in this order, on the engine's threads (a caller on the
    /// shared pool, busy elsewhere, would see its deadline pass before its attempts ran).
    static func connect(to addresses: [Address], port: Int, deadline: Deadline) async throws(ProbeFailure) -> TCPConnection {
        guard !addresses.isEmpty else { throw ProbeFailure(kind: .nameNotResolved, detail: "no address to connect to") }
        guard let runtime = ProbeRuntime.current else { throw unbound }
        if addresses.count == 1 { return try await connect(to: addresses[0], port: port, deadline: deadline) }
        return try await withTaskExecutorPreference(runtime.executor) { () async throws(ProbeFailure) -> TCPConnection in
            try await happyEyeballs(addresses, resolving: nil, port: port, deadline: deadline)
        }
    }

    /// RFC 8305 section 3's "Resolution Delay": when A answers first, AAAA gets this long before
    /// connecting starts without it.
    static let resolutionDelay = 0.05

    private enum Event: Sendable {
        case resolved(Resolver.Family, Resolver.Answer)
        case resolutionDelayOver
        case attemptDelayOver(Int)
        case attempt(Result<TCPConnection, ProbeFailure>)
    }

    /// Connection attempts over `initial` and whatever the lookups of `resolving` add as they
    /// answer (AAAA first when both are there, RFC 8305 section 4). Ends with the first
    /// connection, or once every address has failed and every lookup has ended.
    private static func happyEyeballs(_ initial: [Address], resolving: (resolver: Resolver, host: String)?, port: Int,
                                      deadline: Deadline, admits: (@Sendable (Address) -> String?)? = nil) async throws(ProbeFailure) -> TCPConnection {
        let outcome = await withTaskGroup(of: Event.self) { group -> Result<TCPConnection, ProbeFailure> in
            var queue = initial           // not yet attempted, in attempt order
            var lastFamily: Int32? = nil
            var running = 0
            var mayStart = true           // no attempt yet, the last one failed, or its delay passed
            var delayMarker = 0
            var lookupsPending = 0
            var v6Pending = false
            var inResolutionDelay = false
            var failures: [ProbeFailure] = []
            var lookupFailures: [Resolver.Family: Resolver.LookupFailure] = [:]
            var refusals: [String] = []
            if let resolving {
                for family in [Resolver.Family.v6, .v4] {
                    lookupsPending += 1
                    group.addTask { .resolved(family, await resolving.resolver.lookup(resolving.host, family: family, deadline: deadline)) }
                }
                v6Pending = true
            }
            func startIfDue() {
                guard mayStart, !inResolutionDelay, !queue.isEmpty else { return }
                // Alternate families when the queue holds both (RFC 8305 section 4).
                let index = resolving == nil ? 0 : nextAttempt(in: queue, after: lastFamily)
                let address = queue.remove(at: index)
                lastFamily = address.family
                mayStart = false
                running += 1
                delayMarker += 1
                let marker = delayMarker
                group.addTask {
                    do throws(ProbeFailure) {
                        return .attempt(.success(try await connect(to: address, port: port, deadline: deadline)))
                    } catch {
                        return .attempt(.failure(error))
                    }
                }
                group.addTask {  // the delay before the next attempt
                    _ = await ProbeRuntime.current?.reactor.sleep(until: Deadline(secondsFromNow: attemptDelay))
                    return .attemptDelayOver(marker)
                }
            }
            startIfDue()
            while let event = await group.next() {
                switch event {
                case .resolved(let family, let answer):
                    lookupsPending -= 1
                    if family == .v6 { v6Pending = false; inResolutionDelay = false }
                    switch answer {
                    case .success(let addresses):
                        var answered = addresses.map { $0.with(port: port) }
                        if let admits {
                            refusals += answered.compactMap(admits)
                            answered = answered.filter { admits($0) == nil }
                        }
                        queue += answered
                        if family == .v4 && v6Pending && running == 0 && lastFamily == nil {
                            inResolutionDelay = true
                            group.addTask {
                                _ = await ProbeRuntime.current?.reactor.sleep(until: Deadline(secondsFromNow: resolutionDelay))
                                return .resolutionDelayOver
                            }
                        }
                    case .failure(let failure):
                        lookupFailures[family] = failure
                    }
                case .resolutionDelayOver:
                    inResolutionDelay = false
                case .attemptDelayOver(let marker):
                    if marker == delayMarker { mayStart = true }  // stale once a failure started the next early
                case .attempt(.success(let connection)):
                    group.cancelAll()  // losers end now; their connections close as they are dropped
                    return .success(connection)
                case .attempt(.failure(let failure)):
                    running -= 1
                    failures.append(failure)
                    // Out of time, or this machine out of descriptors: no other address can do better.
                    if (failure.kind == .connectTimeout && deadline.hasPassed) || failure.kind == .localResources {
                        group.cancelAll()
                        return .failure(connectFailure(failures))
                    }
                    mayStart = true
                }
                startIfDue()
                if running == 0 && queue.isEmpty && lookupsPending == 0 {
                    group.cancelAll()
                    if !failures.isEmpty { return .failure(connectFailure(failures)) }
                    if let refusal = refusals.first { return .failure(ProbeFailure(kind: .other, detail: refusal)) }
                    return .failure(resolutionFailure(resolving?.host ?? "", lookupFailures))
                }
            }
            return .failure(connectFailure(failures))
        }
        return try outcome.get()
    }

    /// The failure to report when every attempt failed: this machine's, then a timeout, then the last.
    private static func connectFailure(_ failures: [ProbeFailure]) -> ProbeFailure {
        failures.first { $0.kind == .localResources } ?? failures.first { $0.kind == .connectTimeout } ?? failures.last
            ?? ProbeFailure(kind: .other, detail: "no connection")
    }

    /// Why neither family gave an address. This machine's trouble first (an audit runs such a
    /// target again), then a name that does not exist (an authoritative NXDOMAIN for either
    /// family), then no answer in time, then a failing server, then no record of either family.
    static func resolutionFailure(_ host: String, _ failures: [Resolver.Family: Resolver.LookupFailure]) -> ProbeFailure {
        let name = UntrustedText.escape(host, limit: 253)
        let all = [failures[.v6], failures[.v4]].compactMap { $0 }
        for failure in all { if case .local(let reason) = failure {
            return ProbeFailure(kind: .localResources, detail: "cannot resolve \(name) here: \(reason)")
        } }
        if all.contains(.doesNotExist) {
            return ProbeFailure(kind: .nameNotResolved, detail: "\(name) does not exist (NXDOMAIN)")
        }
        let waited = all.compactMap { failure -> Double? in
            if case .timedOut(let seconds) = failure { return seconds } else { return nil }
        }
        if let seconds = waited.max() {
            return ProbeFailure(kind: .nameResolutionTimeout, detail: "\(name): name not resolved within \(secondsText(seconds)) s")
        }
        for failure in all { if case .serverFailure(let reason) = failure {
            return ProbeFailure(kind: .nameNotResolved, detail: "\(name): \(reason)")
        } }
        if all.contains(.badName) {
            return ProbeFailure(kind: .nameNotResolved, detail: "\(name) is not a name DNS can look up")
        }
        return ProbeFailure(kind: .nameNotResolved, detail: "\(name): no IPv4 or IPv6 address")
    }

    /// "5", "2.5": whole seconds without a fraction.
    static func secondsText(_ seconds: Double) -> String {
        let rounded = (seconds * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : rounded.fixed(1)
    }

    /// Which queued address to try next: the first of the other family than the last attempt's,
    /// else the first, so families alternate (v6, v4, v6, v4...) in the resolver's order within
    /// each family (RFC 8305 section 4).
    static func nextAttempt(in queue: [Address], after lastFamily: Int32?) -> Int {
        queue.firstIndex { $0.family != lastFamily } ?? 0
    }

    struct Address: Sendable {
        var storage: sockaddr_storage
        var length: socklen_t
        var family: Int32
        var text: String

        /// The same address with `port` (the resolver's answers carry none).
        func with(port: Int) -> Address {
            var copy = self
            let networkPort = in_port_t(UInt16(clamping: port).bigEndian)
            withUnsafeMutableBytes(of: &copy.storage) { raw in
                if family == AF_INET {
                    raw.withMemoryRebound(to: sockaddr_in.self) { $0[0].sin_port = networkPort }
                } else if family == AF_INET6 {
                    raw.withMemoryRebound(to: sockaddr_in6.self) { $0[0].sin6_port = networkPort }
                }
            }
            return copy
        }
    }

    /// A numeric host (IPv4 or IPv6 literal) as an address, without a lookup (getaddrinfo with
    /// AI_NUMERICHOST never blocks). Names go through `Resolver`.
    static func numericAddresses(host: String, port: Int) throws(ProbeFailure) -> [Address] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_protocol = Int32(IPPROTO_TCP)
        hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            if status == EAI_MEMORY { throw ProbeFailure(kind: .localResources, detail: "cannot convert \(host) here: out of memory") }
            throw ProbeFailure(kind: .nameNotResolved, detail: "\(UntrustedText.escape(host, limit: 100)): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(first) }
        var addresses: [Address] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor, addresses.count < 16 {
            cursor = entry.pointee.ai_next
            guard let sa = entry.pointee.ai_addr, entry.pointee.ai_family == AF_INET || entry.pointee.ai_family == AF_INET6 else { continue }
            var storage = sockaddr_storage()
            let length = entry.pointee.ai_addrlen
            withUnsafeMutableBytes(of: &storage) { raw in
                raw.copyMemory(from: UnsafeRawBufferPointer(start: sa, count: Int(length)))
            }
            addresses.append(Address(storage: storage, length: length, family: entry.pointee.ai_family,
                                     text: numericHost(sa, length)))
        }
        guard !addresses.isEmpty else { throw ProbeFailure(kind: .nameNotResolved, detail: "\(host): no IPv4 or IPv6 address") }
        return addresses
    }

    static func numericHost(_ sa: UnsafePointer<sockaddr>, _ length: socklen_t) -> String {
        var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard getnameinfo(sa, length, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0 else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Non-blocking connect, then wait for writability until the deadline.
    static func connect(to address: Address, port: Int, deadline: Deadline) async throws(ProbeFailure) -> TCPConnection {
        let fd = socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw failure(errno: errno, address: address, port: port) }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var storage = address.storage
        let result = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, address.length) }
        }
        if result != 0 {
            let error = errno
            guard error == EINPROGRESS else {
                close(fd)
                throw failure(errno: error, address: address, port: port)
            }
            if await ProbeRuntime.current?.reactor.wait(for: .writable, on: fd, until: deadline) != .ready {
                close(fd)
                throw ProbeFailure(kind: .connectTimeout, detail: "no connection to \(address.text) port \(port) in time")
            }
            var soError: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &length)
            if soError != 0 {
                close(fd)
                throw failure(errno: soError, address: address, port: port)
            }
        }
        return TCPConnection(descriptor: fd, peerAddress: address.text)
    }

    /// errno values that mean this machine, not the peer, is out of something.
    static let localResourceErrors: Set<Int32> = [EMFILE, ENFILE, ENOMEM, ENOBUFS]

    static func failure(errno code: Int32, address: Address, port: Int) -> ProbeFailure {
        let text = "\(address.text) port \(port): \(String(cString: strerror(code)))"
        if localResourceErrors.contains(code) {
            return ProbeFailure(kind: .localResources, detail: "cannot connect to \(text) from here")
        }
        switch code {
        case ECONNREFUSED: return ProbeFailure(kind: .connectionRefused, detail: text)
        case ENETUNREACH, EHOSTUNREACH, EADDRNOTAVAIL, EAFNOSUPPORT, ENETDOWN, EHOSTDOWN:
            return ProbeFailure(kind: .networkUnreachable, detail: text)
        case ETIMEDOUT: return ProbeFailure(kind: .connectTimeout, detail: text)
        // Accepted, then reset before we saw the connection complete.
        case ECONNRESET, EPIPE: return ProbeFailure(kind: .resetDuringHandshake, detail: text)
        default: return ProbeFailure(kind: .other, detail: text)
        }
    }

    enum IOResult {
        case bytes(Int)
        case closed
        case reset
        case timedOut
        case failed(Int32)
    }

    /// Sends all of `data` before the deadline.
    func send(_ data: [UInt8], deadline: Deadline) async -> IOResult {
        var sent = 0
        while sent < data.count {
            let n = data.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress! + sent, data.count - sent, Int32(MSG_NOSIGNAL)) }
            if n > 0 { sent += n; continue }
            let error = errno
            if error == EINTR { continue }
            if error == EAGAIN || error == EWOULDBLOCK {
                guard await wait(for: .writable, deadline: deadline) else { return .timedOut }
                continue
            }
            return error == ECONNRESET || error == EPIPE ? .reset : .failed(error)
        }
        return .bytes(sent)
    }

    /// Receives up to `capacity` bytes, waiting until the deadline for some to arrive.
    func receive(into buffer: inout [UInt8], deadline: Deadline) async -> IOResult {
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress!, $0.count, 0) }
            if n > 0 { return .bytes(n) }
            if n == 0 { return .closed }
            let error = errno
            if error == EINTR { continue }
            if error == EAGAIN || error == EWOULDBLOCK {
                guard await wait(for: .readable, deadline: deadline) else { return .timedOut }
                continue
            }
            return error == ECONNRESET ? .reset : .failed(error)
        }
    }

    /// Receives up to `limit` bytes, waiting until the deadline for some to arrive, and lends
    /// them to `consume` in a buffer that lives only for that call. Nothing is held for the
    /// connection while it waits: a buffer kept per connection is resident for most of the
    /// connection's life, which is mostly waiting for the peer.
    func receive(upTo limit: Int, deadline: Deadline, _ consume: (UnsafeRawBufferPointer) -> Void) async -> IOResult {
        while true {
            let (n, error) = TCPConnection.receiveOnce(descriptor, upTo: limit, consume)
            if n > 0 { return .bytes(n) }
            if n == 0 { return .closed }
            if error == EINTR { continue }
            if error == EAGAIN || error == EWOULDBLOCK {
                guard await wait(for: .readable, deadline: deadline) else { return .timedOut }
                continue
            }
            return error == ECONNRESET ? .reset : .failed(error)
        }
    }

    /// One recv into the thread's receive region (`ThreadScratch`), handed to `consume` when
    /// bytes came; recv's result and errno. Synchronous: the region is lent for the call alone,
    /// never held across an await or kept in the task's allocator with the async frames.
    @inline(never)
    private static func receiveOnce(_ descriptor: Int32, upTo limit: Int,
                                    _ consume: (UnsafeRawBufferPointer) -> Void) -> (Int, Int32) {
        ThreadScratch.withRegion(.receive) { region in
            let n = recv(descriptor, region.baseAddress!, min(max(1, limit), region.count), 0)
            let error = n < 0 ? errno : 0
            if n > 0 { consume(UnsafeRawBufferPointer(start: region.baseAddress!, count: n)) }
            return (n, error)
        }
    }

    /// True when the socket is ready (or in error, which the next call reports) before the
    /// deadline; false when the deadline passed or the task was cancelled.
    private func wait(for interest: Reactor.Interest, deadline: Deadline) async -> Bool {
        await ProbeRuntime.current?.reactor.wait(for: interest, on: descriptor, until: deadline) == .ready
    }
}
