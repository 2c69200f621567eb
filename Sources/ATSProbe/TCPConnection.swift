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

    /// RFC 8305's "Connection Attempt Delay": the next address is tried this long after the
    /// previous attempt started, or at once when it fails.
    static let attemptDelay = 0.25

    /// Resolves `host` (IPv4 and IPv6, off the reactor, within the deadline) and connects with
    /// Happy Eyeballs (RFC 8305): addresses interleaved by family, a new attempt every 250 ms or
    /// as soon as one fails, the first connection to complete wins and the others are closed.
    static func connect(host: String, port: Int, deadline: Deadline) async throws(ProbeFailure) -> TCPConnection {
        let addresses = try await ProbeRuntime.current.resolver.resolve(host: host, port: port, deadline: deadline)
        return try await connect(to: interleavedByFamily(addresses), port: port, deadline: deadline)
    }

    /// Happy Eyeballs over `addresses` as given (tests).
    static func connect(addresses: [Address], port: Int, deadline: Deadline) async throws(ProbeFailure) -> TCPConnection {
        try await connect(to: addresses, port: port, deadline: deadline)
    }

    /// Happy Eyeballs over `addresses`, in this order, on the engine's threads (a caller on the
    /// shared pool, busy elsewhere, would see its deadline pass before its attempts ran).
    static func connect(to addresses: [Address], port: Int, deadline: Deadline) async throws(ProbeFailure) -> TCPConnection {
        try await withTaskExecutorPreference(ProbeRuntime.current.executor) { () async throws(ProbeFailure) -> TCPConnection in
            try await happyEyeballs(addresses, port: port, deadline: deadline)
        }
    }

    private static func happyEyeballs(_ addresses: [Address], port: Int, deadline: Deadline) async throws(ProbeFailure) -> TCPConnection {
        guard !addresses.isEmpty else { throw ProbeFailure(kind: .nameNotResolved, detail: "no address to connect to") }
        if addresses.count == 1 { return try await connect(to: addresses[0], port: port, deadline: deadline) }
        typealias Attempt = (index: Int, outcome: Result<TCPConnection, ProbeFailure>?)
        let (winner, failures) = await withTaskGroup(of: Attempt.self) { group -> (TCPConnection?, [ProbeFailure]) in
            var started = 0
            var running = 0
            var failures: [ProbeFailure] = []
            func startNext() {
                let address = addresses[started]
                started += 1
                running += 1
                group.addTask {
                    do throws(ProbeFailure) {
                        return (0, .success(try await connect(to: address, port: port, deadline: deadline)))
                    } catch {
                        return (0, .failure(error))
                    }
                }
                if started < addresses.count {
                    let marker = started  // stale once a failure has started the next attempt early
                    group.addTask {  // the delay before the next attempt (nil outcome)
                        _ = await ProbeRuntime.current.reactor.sleep(until: Deadline(secondsFromNow: attemptDelay))
                        return (marker, nil)
                    }
                }
            }
            startNext()
            while let attempt = await group.next() {
                switch attempt.outcome {
                case nil:
                    if attempt.index == started, started < addresses.count { startNext() }
                case .success(let connection)?:
                    group.cancelAll()  // losers end now; their connections close as they are dropped
                    return (connection, failures)
                case .failure(let failure)?:
                    running -= 1
                    failures.append(failure)
                    // Out of time, or this machine out of descriptors: no other address can do better.
                    if (failure.kind == .connectTimeout && deadline.hasPassed) || failure.kind == .localResources {
                        group.cancelAll()
                        return (nil, failures)
                    }
                    if started < addresses.count { startNext() } else if running == 0 { return (nil, failures) }
                }
            }
            return (nil, failures)
        }
        if let winner { return winner }
        throw failures.first { $0.kind == .localResources } ?? failures.first { $0.kind == .connectTimeout } ?? failures.last
            ?? ProbeFailure(kind: .other, detail: "no connection")
    }

    /// v6, v4, v6, v4... in the resolver's order within each family (RFC 8305 section 4).
    static func interleavedByFamily(_ addresses: [Address]) -> [Address] {
        guard let firstFamily = addresses.first?.family else { return addresses }
        let first = addresses.filter { $0.family == firstFamily }
        let other = addresses.filter { $0.family != firstFamily }
        var result: [Address] = []
        for index in 0..<max(first.count, other.count) {
            if index < first.count { result.append(first[index]) }
            if index < other.count { result.append(other[index]) }
        }
        return result
    }

    struct Address: Sendable {
        var storage: sockaddr_storage
        var length: socklen_t
        var family: Int32
        var text: String
    }

    /// getaddrinfo: numeric hosts are never looked up. It blocks and takes no deadline: called
    /// from the resolver's threads (Resolver), never from a task, except for numeric hosts.
    static func resolve(host: String, port: Int) throws(ProbeFailure) -> [Address] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_protocol = Int32(IPPROTO_TCP)
        hints.ai_flags = Target.isIPAddress(host) ? AI_NUMERICHOST | AI_NUMERICSERV : AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            let systemError = errno
            // EAI_SYSTEM with EMFILE is this machine out of descriptors, not an unknown name.
            if status == EAI_MEMORY || (status == EAI_SYSTEM && localResourceErrors.contains(systemError)) {
                let reason = status == EAI_MEMORY ? "out of memory" : String(cString: strerror(systemError))
                throw ProbeFailure(kind: .localResources, detail: "cannot resolve \(host) here: \(reason)")
            }
            let reason = String(cString: gai_strerror(status))
            throw ProbeFailure(kind: .nameNotResolved, detail: "\(host): \(reason)")
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
            if await ProbeRuntime.current.reactor.wait(for: .writable, on: fd, until: deadline) != .ready {
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

    /// True when the socket is ready (or in error, which the next call reports) before the
    /// deadline; false when the deadline passed or the task was cancelled.
    private func wait(for interest: Reactor.Interest, deadline: Deadline) async -> Bool {
        await ProbeRuntime.current.reactor.wait(for: interest, on: descriptor, until: deadline) == .ready
    }
}
