import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small DNS server on 127.0.0.1 for resolver tests: UDP and TCP on one port the kernel
/// chose, each name answered the way the test says (at once, late, never, NXDOMAIN, SERVFAIL,
/// truncated, garbage), so a probe run with `--dns-servers 127.0.0.1:PORT` never depends on
/// the machine's resolv.conf. One thread runs a poll loop; a late answer is a timer in that
/// loop, so a slow name never delays another. `stop()` ends the thread (bounded wait).
package final class LoopbackDNSServer: @unchecked Sendable {
    /// How the server treats one name (both record types unless said otherwise).
    package enum Behavior: Sendable, Hashable {
        /// A and AAAA records (either list may be empty: NOERROR with no answer), after `delay` seconds.
        case answer(v4: [String], v6: [String] = [], ttl: UInt32 = 60, delay: Double = 0)
        /// Name error, after `delay` seconds.
        case nxdomain(delay: Double = 0)
        /// Server failure, after `delay` seconds.
        case servfail(delay: Double = 0)
        /// No answer at all.
        case never
        /// Over UDP an empty answer with the TC bit (the client must ask again over TCP);
        /// over TCP the A records.
        case truncated(v4: [String])
        /// Random bytes carrying the query's ID.
        case garbage
        /// A valid answer cut off in the middle of its first record.
        case cutShort(v4: [String])
        /// An answer that claims 60,000 records and carries one, with a compression pointer loop.
        case lyingCounts
    }

    package let port: Int
    /// The loopback address it listens on: "127.0.0.1" or "::1".
    package let bindAddress: String
    /// `--dns-servers` value for this server ("127.0.0.1:PORT", "[::1]:PORT").
    package var address: String { bindAddress.contains(":") ? "[\(bindAddress)]:\(port)" : "\(bindAddress):\(port)" }

    private let names: [String: Behavior]
    private let fallback: Behavior
    private let udp: Int32
    private let tcp: Int32
    private let wake: [Int32]
    private let finished = DispatchSemaphore(value: 0)
    private let counters = Locked(Counters())

    private struct Counters {
        var udpQueries = 0
        var tcpQueries = 0
        var byName: [String: Int] = [:]
        var stopped = false
    }

    /// Queries received (UDP + TCP), and per lower-cased name.
    package var queries: Int { counters.withLock { $0.udpQueries + $0.tcpQueries } }
    package var tcpQueries: Int { counters.withLock { $0.tcpQueries } }
    package func queries(for name: String) -> Int { counters.withLock { $0.byName[name.lowercased(), default: 0] } }

    /// `names` by lower-case name without the final dot; anything else gets `fallback`.
    /// `bindAddress`: "127.0.0.1" or "::1" (IPv6 loopback, for `--dns-servers` given IPv6).
    package init(names: [String: Behavior], fallback: Behavior = .nxdomain(), bindAddress: String = "127.0.0.1") throws {
        guard bindAddress == "127.0.0.1" || bindAddress == "::1" else { throw TestServerError(.badArgument, "bind 127.0.0.1 or ::1, not \(bindAddress)") }
        self.names = Dictionary(uniqueKeysWithValues: names.map { ($0.key.lowercased(), $0.value) })
        self.fallback = fallback
        self.bindAddress = bindAddress
        let v6 = bindAddress == "::1"
        // UDP on port 0, then TCP on the same port (c-ares asks both on one port). Another
        // process may hold that TCP port: try a few fresh UDP ports, then give up.
        var bound: (udp: Int32, tcp: Int32, port: Int)?
        for _ in 0..<8 where bound == nil {
            let (udp, port) = try Self.bind(type: Int32(SOCK_DGRAM.rawValue), port: 0, v6: v6)
            if let (tcp, _) = try? Self.bind(type: Int32(SOCK_STREAM.rawValue), port: port, v6: v6) {
                bound = (udp, tcp, port)
            } else {
                close(udp)
            }
        }
        guard let bound else { throw TestServerError(.noFreePort, "no port free for both UDP and TCP") }
        (udp, tcp, port) = bound
        guard listen(tcp, 16) == 0 else { throw TestServerError.system("listen") }
        var pipeFDs: [Int32] = [0, 0]
        guard pipe(&pipeFDs) == 0 else { throw TestServerError.system("pipe") }
        wake = pipeFDs
        for fd in [udp, tcp, wake[0]] { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        let thread = Thread { [self] in
            serve()
            finished.signal()
        }
        thread.name = "atsprobe-test-dns-\(port)"
        thread.start()
    }

    deinit { stop() }

    /// Idempotent: ends the server thread (waiting at most 10 s) and closes its sockets.
    package func stop() {
        let first = counters.withLock { counters -> Bool in
            defer { counters.stopped = true }
            return !counters.stopped
        }
        guard first else { return }
        var byte: UInt8 = 1
        _ = write(wake[1], &byte, 1)
        _ = finished.wait(timeout: .now() + 10)
        close(wake[1])
    }

    // MARK: - The loop

    private struct Pending {
        let due: Double
        let bytes: [UInt8]
        /// UDP: the peer; TCP: nil (sent on `connection`).
        let peer: sockaddr_storage?
        let peerLength: socklen_t
        let connection: Int32
    }

    private func serve() {
        var connections: [Int32: [UInt8]] = [:]
        var pending: [Pending] = []
        defer {
            for fd in connections.keys { close(fd) }
            close(udp)
            close(tcp)
            close(wake[0])
        }
        while true {
            let now = Self.now()
            // Send what is due.
            let due = pending.filter { $0.due <= now }
            pending.removeAll { $0.due <= now }
            for reply in due { send(reply, open: connections) }
            var fds = [pollfd(fd: wake[0], events: Int16(POLLIN), revents: 0),
                       pollfd(fd: udp, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: tcp, events: Int16(POLLIN), revents: 0)]
            fds += connections.keys.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let timeout = pending.map(\.due).min().map { Int32(max(0, min(1000, ($0 - now) * 1000)).rounded(.up)) } ?? 1000
            guard poll(&fds, nfds_t(fds.count), timeout) >= 0 || errno == EINTR else { return }
            if fds[0].revents != 0 { return }
            if fds[1].revents != 0 { pending += readUDP() }
            if fds[2].revents != 0, connections.count < 64 {
                let fd = accept(tcp, nil, nil)
                if fd >= 0 { connections[fd] = [] }
            }
            for entry in fds.dropFirst(3) where entry.revents != 0 {
                let fd = entry.fd
                var chunk = [UInt8](repeating: 0, count: 4096)
                let count = recv(fd, &chunk, chunk.count, Int32(MSG_DONTWAIT))
                if count <= 0 {
                    if count < 0 && (errno == EAGAIN || errno == EINTR) { continue }
                    close(fd)
                    connections[fd] = nil
                    pending.removeAll { $0.connection == fd }
                    continue
                }
                var buffer = connections[fd, default: []] + chunk.prefix(count)
                // Each message: a 2-byte length, then the query (RFC 1035 section 4.2.2).
                while buffer.count >= 2 {
                    let length = Int(buffer[0]) << 8 | Int(buffer[1])
                    guard buffer.count >= 2 + length else { break }
                    let query = Array(buffer[2..<(2 + length)])
                    buffer.removeFirst(2 + length)
                    counters.withLock { $0.tcpQueries += 1 }
                    if let (delay, reply) = answer(query, overTCP: true) {
                        let framed = [UInt8(reply.count >> 8), UInt8(reply.count & 0xFF)] + reply
                        pending.append(Pending(due: Self.now() + delay, bytes: framed, peer: nil, peerLength: 0, connection: fd))
                    }
                }
                if buffer.count > 65_537 { buffer.removeAll() }
                connections[fd] = buffer
            }
        }
    }

    private func readUDP() -> [Pending] {
        var replies: [Pending] = []
        for _ in 0..<64 {
            var buffer = [UInt8](repeating: 0, count: 4096)
            var peer = sockaddr_storage()
            var peerLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let count = withUnsafeMutablePointer(to: &peer) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(udp, &buffer, buffer.count, Int32(MSG_DONTWAIT), $0, &peerLength) }
            }
            guard count > 0 else { break }
            counters.withLock { $0.udpQueries += 1 }
            if let (delay, reply) = answer(Array(buffer.prefix(count)), overTCP: false) {
                replies.append(Pending(due: Self.now() + delay, bytes: reply, peer: peer, peerLength: peerLength, connection: -1))
            }
        }
        return replies
    }

    private func send(_ reply: Pending, open connections: [Int32: [UInt8]]) {
        if var peer = reply.peer {
            _ = withUnsafePointer(to: &peer) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(udp, reply.bytes, reply.bytes.count, Int32(MSG_DONTWAIT), $0, reply.peerLength) }
            }
        } else if connections[reply.connection] != nil {
            _ = Glibc.send(reply.connection, reply.bytes, reply.bytes.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
        }
    }

    // MARK: - Answers

    /// The reply to `query` and when to send it (seconds from now); nil for no reply.
    func answer(_ query: [UInt8], overTCP: Bool) -> (Double, [UInt8])? {
        guard let question = Question(query) else { return nil }
        counters.withLock { $0.byName[question.name, default: 0] += 1 }
        let behavior = names[question.name] ?? fallback
        switch behavior {
        case .answer(let v4, let v6, let ttl, let delay):
            let addresses = question.type == 1 ? v4 : question.type == 28 ? v6 : []
            return (delay, reply(to: question, query: query, rcode: 0, addresses: addresses, type: question.type, ttl: ttl))
        case .nxdomain(let delay):
            return (delay, reply(to: question, query: query, rcode: 3))
        case .servfail(let delay):
            return (delay, reply(to: question, query: query, rcode: 2))
        case .never:
            return nil
        case .truncated(let v4):
            guard overTCP else {
                var bytes = reply(to: question, query: query, rcode: 0)
                bytes[2] |= 0x02  // TC
                return (0, bytes)
            }
            return (0, reply(to: question, query: query, rcode: 0, addresses: question.type == 1 ? v4 : [], type: 1, ttl: 60))
        case .garbage:
            var bytes = query.prefix(2) + (0..<40).map { _ in UInt8.random(in: 0...255) }
            bytes[2] |= 0x80  // QR, so it reads as a response
            return (0, Array(bytes))
        case .cutShort(let v4):
            let full = reply(to: question, query: query, rcode: 0, addresses: question.type == 1 ? v4 : [], type: 1, ttl: 60)
            let cut = question.type == 1 ? question.end + 7 : full.count
            return (0, Array(full.prefix(cut)))
        case .lyingCounts:
            var bytes = reply(to: question, query: query, rcode: 0, addresses: ["127.0.0.1"], type: 1, ttl: 60)
            bytes[6] = 0xEA; bytes[7] = 0x60  // ANCOUNT 60,000
            // A second "record" whose name points at itself.
            let here = bytes.count
            bytes += [0xC0 | UInt8(here >> 8), UInt8(here & 0xFF), 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 127, 0, 0, 1]
            return (0, bytes)
        }
    }

    private func reply(to question: Question, query: [UInt8], rcode: UInt8, addresses: [String] = [], type: UInt16 = 1,
                       ttl: UInt32 = 60) -> [UInt8] {
        var records: [[UInt8]] = []
        for text in addresses {
            var v4 = in_addr(), v6 = in6_addr()
            let data: [UInt8]
            if type == 1, inet_pton(AF_INET, text, &v4) == 1 {
                data = withUnsafeBytes(of: &v4) { Array($0) }
            } else if type == 28, inet_pton(AF_INET6, text, &v6) == 1 {
                data = withUnsafeBytes(of: &v6) { Array($0) }
            } else {
                continue
            }
            records.append([0xC0, 0x0C, UInt8(type >> 8), UInt8(type & 0xFF), 0, 1]
                           + [UInt8(ttl >> 24), UInt8((ttl >> 16) & 0xFF), UInt8((ttl >> 8) & 0xFF), UInt8(ttl & 0xFF)]
                           + [0, UInt8(data.count)] + data)
        }
        let rd = query[2] & 0x01
        var bytes: [UInt8] = [query[0], query[1], 0x84 | rd, 0x80 | rcode, 0, 1, 0, UInt8(records.count), 0, 0, 0, 0]
        bytes += query[12..<question.end]
        for record in records { bytes += record }
        return bytes
    }

    /// The first question of a query: lower-cased name without the final dot, type, and where it ends.
    struct Question {
        let name: String
        let type: UInt16
        let end: Int

        init?(_ query: [UInt8]) {
            guard query.count >= 17, query[2] & 0x80 == 0, query[4] == 0, query[5] >= 1 else { return nil }
            var offset = 12
            var labels: [String] = []
            while offset < query.count, query[offset] != 0 {
                let length = Int(query[offset])
                guard length < 64, offset + 1 + length < query.count else { return nil }
                labels.append(String(decoding: query[(offset + 1)...(offset + length)], as: UTF8.self).lowercased())
                offset += 1 + length
            }
            guard offset + 5 <= query.count else { return nil }
            name = labels.joined(separator: ".")
            type = UInt16(query[offset + 1]) << 8 | UInt16(query[offset + 2])
            end = offset + 5
        }
    }

    // MARK: - Sockets

    private static func bind(type: Int32, port: Int, v6: Bool) throws -> (Int32, Int) {
        let fd = socket(v6 ? AF_INET6 : AF_INET, type | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestServerError.system("socket") }
        let shown = v6 ? "[::1]:\(port)" : "127.0.0.1:\(port)"
        var storage = sockaddr_storage()
        let length: socklen_t
        if v6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            address.sin6_addr = in6addr_loopback
            withUnsafeBytes(of: &address) { raw in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: raw) } }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            withUnsafeBytes(of: &address) { raw in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: raw) } }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
        }
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, length) }
        }
        guard bound == 0 else {
            let error = TestServerError.system("bind \(shown)")
            close(fd)
            throw error
        }
        var chosen = sockaddr_storage()
        var chosenLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &chosen) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &chosenLength) }
        }
        let chosenPort = withUnsafeBytes(of: &chosen) { raw -> UInt16 in
            // sin_port and sin6_port both sit at offset 2, in network order.
            UInt16(raw[2]) << 8 | UInt16(raw[3])
        }
        return (fd, Int(chosenPort))
    }

    private static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}
