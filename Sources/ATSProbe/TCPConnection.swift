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

/// A connected, non-blocking TCP socket. Owns the descriptor.
final class TCPConnection {
    let descriptor: Int32
    /// The numeric address connected to ("127.0.0.1", "::1").
    let peerAddress: String

    private init(descriptor: Int32, peerAddress: String) {
        self.descriptor = descriptor
        self.peerAddress = peerAddress
    }

    deinit { close(descriptor) }

    /// Resolves `host` (IPv4 and IPv6) and connects to the first address that answers,
    /// within the deadline.
    static func connect(host: String, port: Int, deadline: Deadline) throws(ProbeFailure) -> TCPConnection {
        try connect(addresses: try resolve(host: host, port: port), port: port, deadline: deadline)
    }

    /// Tries each address in turn: a refusing one passes to the next; a timeout or this
    /// machine running out of descriptors ends the attempt.
    static func connect(addresses: [Address], port: Int, deadline: Deadline) throws(ProbeFailure) -> TCPConnection {
        var lastFailure = ProbeFailure(kind: .nameNotResolved, detail: "no address")
        for address in addresses {
            if deadline.hasPassed { throw ProbeFailure(kind: .connectTimeout, detail: "no connection to \(address.text) port \(port) in time") }
            do {
                return try connect(to: address, port: port, deadline: deadline)
            } catch {
                lastFailure = error
                if error.kind == .connectTimeout || error.kind == .localResources { throw error }
            }
        }
        throw lastFailure
    }

    struct Address {
        var storage: sockaddr_storage
        var length: socklen_t
        var family: Int32
        var text: String
    }

    /// getaddrinfo: numeric hosts are never looked up. It cannot be given a deadline; the
    /// caller's watchdog covers a resolver that hangs.
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

    /// Non-blocking connect, then poll for writability until the deadline.
    static func connect(to address: Address, port: Int, deadline: Deadline) throws(ProbeFailure) -> TCPConnection {
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
            var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            while true {
                let ready = poll(&pfd, 1, deadline.pollMilliseconds)
                if ready < 0 && errno == EINTR { continue }
                if ready <= 0 {
                    close(fd)
                    throw ProbeFailure(kind: .connectTimeout, detail: "no connection to \(address.text) port \(port) in time")
                }
                break
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
    func send(_ data: [UInt8], deadline: Deadline) -> IOResult {
        var sent = 0
        while sent < data.count {
            let n = data.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress! + sent, data.count - sent, Int32(MSG_NOSIGNAL)) }
            if n > 0 { sent += n; continue }
            let error = errno
            if error == EINTR { continue }
            if error == EAGAIN || error == EWOULDBLOCK {
                guard wait(for: Int16(POLLOUT), deadline: deadline) else { return .timedOut }
                continue
            }
            return error == ECONNRESET || error == EPIPE ? .reset : .failed(error)
        }
        return .bytes(sent)
    }

    /// Receives up to `capacity` bytes, waiting until the deadline for some to arrive.
    func receive(into buffer: inout [UInt8], deadline: Deadline) -> IOResult {
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress!, $0.count, 0) }
            if n > 0 { return .bytes(n) }
            if n == 0 { return .closed }
            let error = errno
            if error == EINTR { continue }
            if error == EAGAIN || error == EWOULDBLOCK {
                guard wait(for: Int16(POLLIN), deadline: deadline) else { return .timedOut }
                continue
            }
            return error == ECONNRESET ? .reset : .failed(error)
        }
    }

    /// True when the socket is ready (or in error, which the next call reports) before the deadline.
    private func wait(for events: Int16, deadline: Deadline) -> Bool {
        var pfd = pollfd(fd: descriptor, events: events, revents: 0)
        while true {
            let timeout = deadline.pollMilliseconds
            if timeout == 0 { return false }
            let ready = poll(&pfd, 1, timeout)
            if ready < 0 && errno == EINTR { continue }
            return ready > 0
        }
    }
}
