#if canImport(Glibc)
import Glibc
#endif
internal import CAres
import Synchronization
import TextSupport
import TLSFacts

/// DNS resolution on the probe's reactor, through c-ares (the asynchronous resolver curl uses).
///
/// No thread is ever held by a lookup: c-ares's sockets are watched by the reactor
/// (`Reactor.watch`, level-triggered callbacks on the engine thread that polls, which call
/// `ares_process_fd`), and its retry timers are reactor sleeps armed from `ares_timeout`. So a
/// name that is slow to fail costs one pending query, never a share of a pool that healthy
/// targets need (issue 23: four getaddrinfo threads held by slow names starved every other target).
///
/// - A and AAAA are separate lookups started together (`lookup(_:family:deadline:)`), so Happy
///   Eyeballs (TCPConnection) connects to the first family that answers.
/// - c-ares is initialised with its defaults: /etc/hosts (in the order nsswitch.conf gives),
///   resolv.conf's nameservers, search list, ndots, timeout and attempts, and the LOCALDOMAIN
///   and RES_OPTIONS variables. `servers` (`--dns-servers`, curl's spelling) replaces the
///   nameservers only.
/// - Each caller waits under its own deadline; a caller whose deadline passes leaves, and the
///   query runs on for the next asker. Concurrent askers of one name share one query.
/// - Answers are kept for their TTL (the smallest in the answer), failures (NXDOMAIN, no such
///   record, SERVFAIL, c-ares giving up) for `failureTTL`: the run asks each name once. The hosts
///   file's answers, which c-ares gives a TTL of 0, are kept for `hostsFileTTL`.
/// - localhost and *.localhost never reach DNS (RFC 6761 section 6.3): /etc/hosts, else loopback.
///
/// The c-ares channel is not thread-safe: every call into it is made holding `lock`, and its
/// callbacks (which run inside those calls) touch only state that lock guards.
///
/// No continuation is resumed while `lock` is held (docs/design.md, "Locks and continuations").
/// Resuming a task takes that task's status-record lock, and cancelling a task holds the same
/// lock while it runs the cancellation handler, which here (`leave`) takes `lock`: resuming
/// under `lock` deadlocked the (then) reactor thread against Happy Eyeballs cancelling a lookup
/// (issue 31). Answers reached inside a c-ares call are queued in `answered` and resumed by
/// `withChannelLock` once the lock is released.
final class Resolver: @unchecked Sendable {
    /// How long a failed lookup is remembered. c-ares's getaddrinfo does not pass on the SOA
    /// minimum RFC 2308 would use, so failures are kept for a fixed five minutes: an audit asks
    /// a dead name once, a long run asks again.
    static let failureTTL = 300.0
    /// How long an answer from the hosts file is kept. c-ares gives such answers a TTL of 0, so
    /// each of a target's probes read the file again, twice (A and AAAA): with the bench's
    /// 10,000-line hosts file and 10,000 connections opening together, the reads queued past
    /// the lookups' deadlines (issue 23, docs/performance.md). Long enough for a target's probes
    /// to share one reading; short enough that an edited hosts file is read again within a run.
    static let hostsFileTTL = 1.0

    enum Family: Sendable, CaseIterable {
        case v4, v6
        var addressFamily: Int32 { self == .v4 ? AF_INET : AF_INET6 }
        var recordName: String { self == .v4 ? "A" : "AAAA" }
    }

    /// Why a family's lookup gave no address.
    enum LookupFailure: Error, Hashable, Sendable {
        /// NXDOMAIN: the name does not exist.
        case doesNotExist
        /// The name exists but has no record of this family.
        case noRecord
        /// The name's servers failed (SERVFAIL, REFUSED, a malformed answer).
        case serverFailure(String)
        /// No answer before the caller's deadline (`seconds` waited), or c-ares gave up.
        case timedOut(seconds: Double)
        /// Not a name DNS can look up.
        case badName
        /// This machine: no memory, no descriptors, no DNS server that would talk to us.
        case local(String)
    }

    typealias Answer = Result<[TCPConnection.Address], LookupFailure>

    private struct Key: Hashable {
        let name: String
        let family: Family
    }

    /// One query in flight and the callers waiting for it.
    private final class Pending {
        var waiters: [UInt64: CheckedContinuation<Answer?, Never>] = [:]
    }

    private enum Entry {
        case pending(Pending)
        case done(Answer, expires: Double)
    }

    /// What an `ares_getaddrinfo` callback needs to find its way back (retained until it runs).
    private final class QueryContext {
        // Not counted: a pending query's callback runs inside a call the resolver makes, or
        // (ARES_EDESTRUCTION) inside its deinit, where it must not touch the resolver at all.
        unowned(unsafe) let resolver: Resolver
        let key: Key
        let started: Double
        init(resolver: Resolver, key: Key, started: Double) {
            self.resolver = resolver
            self.key = key
            self.started = started
        }
    }

    private let reactor: Reactor
    /// Where lookups wait and the retry timer runs: the runtime's engine threads.
    private let executor: EngineExecutor
    private let lock = Mutex(())
    // Guarded by `lock`:
    private var channel: ares_channel?
    private var entries: [Key: Entry] = [:]
    private var watches: [Int32: UInt64] = [:]
    private var timerArmedAt = Double.infinity
    private var nextWaiter: UInt64 = 1
    /// Waiters answered while `lock` was held, resumed by `withChannelLock` after it is released.
    private var answered: [(CheckedContinuation<Answer?, Never>, Answer)] = []
    private var queriesSent = 0
    /// True while `startQuery` is inside `ares_getaddrinfo`: a query that ends there was answered
    /// without the network (the hosts file).
    private var startingQuery = false
    /// Set in deinit: c-ares's socket callbacks during ares_destroy have nothing left to do.
    private var closing = false

    /// `servers`: "ADDR[:PORT][,ADDR[:PORT]...]" as curl's --dns-servers (IPv6 in brackets when
    /// a port follows); nil keeps resolv.conf's. Throws `ResolverSetupError` when c-ares cannot
    /// start or refuses the list.
    init(reactor: Reactor, executor: EngineExecutor, servers: String?) throws(ResolverSetupError) {
        self.reactor = reactor
        self.executor = executor
        let library = Resolver.libraryStatus
        guard library == ARES_SUCCESS else {
            throw ResolverSetupError(code: .libraryUnavailable, reason: "c-ares could not start: \(Resolver.describe(library))")
        }
        var options = ares_options()
        options.sock_state_cb = { data, descriptor, readable, writable in
            guard let data else { return }
            // Unretained on purpose: this also runs inside deinit (ares_destroy closing sockets).
            Unmanaged<Resolver>.fromOpaque(data)._withUnsafeGuaranteedRef {
                $0.socketStateChanged(descriptor, readable: readable != 0, writable: writable != 0)
            }
        }
        options.sock_state_cb_data = Unmanaged.passUnretained(self).toOpaque()
        var created: ares_channel?
        let status = ares_init_options(&created, &options, ARES_OPT_SOCK_STATE_CB)
        guard status == ARES_SUCCESS, let created else {
            throw ResolverSetupError(code: .libraryUnavailable, reason: "c-ares could not start: \(Resolver.describe(status))")
        }
        channel = created
        if let servers {
            let status = ares_set_servers_ports_csv(created, servers)
            if status != ARES_SUCCESS {
                ares_destroy(created)
                channel = nil
                throw ResolverSetupError(code: .serversRefused, reason: "DNS servers '\(UntrustedText.escape(servers, limit: 200))': \(Resolver.describe(status))")
            }
        }
    }

    deinit { shutdown() }

    /// Closes the channel (the runtime's shutdown, or deinit): its queries end (their callbacks
    /// see ARES_EDESTRUCTION), each socket is reported closed and leaves the reactor, and later
    /// lookups find no channel and fail at once.
    func shutdown() {
        withChannelLock {
            closing = true
            for (descriptor, id) in watches { reactor.unwatch(id, descriptor: descriptor) }
            watches.removeAll()
            if let channel { ares_destroy(channel) }
            channel = nil
        }
    }

    /// ares_library_init's status, called once (out of memory is the machine's failure:
    /// every Resolver then refuses to start, never a trap).
    private static let libraryStatus: Int32 = ares_library_init(ARES_LIB_INIT_ALL)

    /// Queries sent to DNS so far (cache hits and hosts-file answers are not counted) (tests).
    var queriesStarted: Int { lock.withLock { _ in queriesSent } }

    /// Runs `body` holding `lock`, then resumes, with the lock released, every waiter that
    /// `body` answered (`finish`). Every path that may call into c-ares (whose callbacks finish
    /// queries) takes the lock through here.
    private func withChannelLock<T>(_ body: () -> T) -> T {
        let (value, resumes) = lock.withLock { _ -> (T, [(CheckedContinuation<Answer?, Never>, Answer)]) in
            let value = body()
            defer { answered.removeAll() }
            return (value, answered)
        }
        for (waiter, answer) in resumes { waiter.resume(returning: answer) }
        return value
    }

    // MARK: - Asking

    /// The addresses of one family for `name` (port 0), waiting until the deadline or
    /// cancellation at most. Never throws: a failure is an `Answer`.
    ///
    /// The waiting runs on the engine's threads (EngineExecutor), whoever calls: the query is
    /// started, and the answer or the deadline settled, even while the caller's executor is busy
    /// (Swift's cooperative pool, two threads here, full of other work). Before, a caller on that
    /// pool queued the start of its own query behind that work, and a name answered at once came
    /// back "timed out" (ResolverTests.aBusyCallerExecutorDoesNotHoldTheLookup).
    func lookup(_ name: String, family: Family, deadline: Deadline) async -> Answer {
        let key = Key(name: name.lowercased(), family: family)
        if let local = localhostAnswer(key) { return local }
        let started = Deadline.now()
        if Task.isCancelled || deadline.hasPassed { return .failure(.timedOut(seconds: 0)) }
        return await withTaskExecutorPreference(executor) {
            await self.lookupOnEngine(key, deadline: deadline, started: started)
        }
    }

    private func lookupOnEngine(_ key: Key, deadline: Deadline, started: Double) async -> Answer {
        let answer: Answer? = await withTaskGroup(of: Answer?.self) { group in
            group.addTask { await self.wait(for: key) }
            group.addTask {
                _ = await self.reactor.sleep(until: deadline)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        return answer ?? .failure(.timedOut(seconds: max(0, min(deadline.end, Deadline.now()) - started)))
    }

    /// The answer for `key`: cached, or from the query in flight, or from a new one. Nil when
    /// the calling task is cancelled first (the query goes on).
    private func wait(for key: Key) async -> Answer? {
        let id = lock.withLock { _ -> UInt64 in
            defer { nextWaiter += 1 }
            return nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Answer?, Never>) in
                let immediate: Answer? = withChannelLock { () -> Answer? in
                    let now = Deadline.now()
                    switch entries[key] {
                    case .done(let answer, let expires)? where expires > now:
                        return answer
                    case .pending(let pending)?:
                        pending.waiters[id] = continuation
                        return nil
                    default:
                        let pending = Pending()
                        pending.waiters[id] = continuation
                        entries[key] = .pending(pending)
                        startQuery(key)  // may answer at once (hosts file): resumed once the lock is released
                        return nil
                    }
                }
                if let immediate { continuation.resume(returning: immediate) }
                // Cancelled before the waiter was registered: the handler found nothing to resume.
                if Task.isCancelled { leave(key, id) }
            }
        } onCancel: {
            leave(key, id)
        }
    }

    /// A waiter gives up (its task was cancelled): resumed with nil, once, if still waiting.
    private func leave(_ key: Key, _ id: UInt64) {
        let waiter = lock.withLock { _ -> CheckedContinuation<Answer?, Never>? in
            guard case .pending(let pending)? = entries[key] else { return nil }
            return pending.waiters.removeValue(forKey: id)
        }
        waiter?.resume(returning: nil)
    }

    /// Holding `lock`.
    private func startQuery(_ key: Key) {
        guard let channel else {
            finish(key, with: .failure(.local("the resolver is closed")), expires: 0)
            return
        }
        queriesSent += 1
        var hints = ares_addrinfo_hints()
        hints.ai_family = key.family.addressFamily
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        // Sorting (RFC 6724) opens a socket per address; Happy Eyeballs orders them instead.
        hints.ai_flags = ARES_AI_NOSORT
        let context = Unmanaged.passRetained(QueryContext(resolver: self, key: key, started: Deadline.now())).toOpaque()
        startingQuery = true
        defer { startingQuery = false }
        ares_getaddrinfo(channel, key.name, nil, &hints, { argument, status, _, result in
            let context = Unmanaged<QueryContext>.fromOpaque(argument!).takeRetainedValue()
            defer { if let result { ares_freeaddrinfo(result) } }
            // The channel is being destroyed with the resolver: nobody waits (a waiter keeps it alive).
            guard status != ARES_EDESTRUCTION else { return }
            context.resolver.queryEnded(context, status: status, result: result)
        }, context)
        armTimer()
    }

    /// An `ares_getaddrinfo` callback: inside a c-ares call, so holding `lock`.
    private func queryEnded(_ context: QueryContext, status: Int32, result: UnsafeMutablePointer<ares_addrinfo>?) {
        let now = Deadline.now()
        guard status == ARES_SUCCESS else {
            let failure = Resolver.failure(status: status, seconds: now - context.started)
            // A failure of this machine is not remembered: the next asker tries again.
            let keep: Double
            if case .local = failure { keep = 0 } else { keep = Resolver.failureTTL }
            finish(context.key, with: .failure(failure), expires: now + keep)
            return
        }
        var addresses: [TCPConnection.Address] = []
        var ttl = Int32.max
        var node = result?.pointee.nodes
        while let entry = node, addresses.count < 16 {
            node = entry.pointee.ai_next
            guard let sa = entry.pointee.ai_addr, entry.pointee.ai_family == context.key.family.addressFamily else { continue }
            let length = entry.pointee.ai_addrlen
            guard Int(length) <= MemoryLayout<sockaddr_storage>.size else { continue }
            var storage = sockaddr_storage()
            withUnsafeMutableBytes(of: &storage) { raw in
                raw.copyMemory(from: UnsafeRawBufferPointer(start: sa, count: Int(length)))
            }
            ttl = min(ttl, max(0, entry.pointee.ai_ttl))
            addresses.append(TCPConnection.Address(storage: storage, length: length, family: entry.pointee.ai_family,
                                                   text: TCPConnection.numericHost(sa, length)))
        }
        if addresses.isEmpty {
            finish(context.key, with: .failure(.noRecord), expires: now + Resolver.failureTTL)
        } else {
            let seconds = Double(ttl == .max ? 0 : ttl)
            finish(context.key, with: .success(addresses), expires: now + (startingQuery ? max(seconds, Resolver.hostsFileTTL) : seconds))
        }
    }

    /// Holding `lock`: records the answer and queues everyone waiting for it, to be resumed by
    /// `withChannelLock` once the lock is released (never here: see the type's comment).
    private func finish(_ key: Key, with answer: Answer, expires: Double) {
        guard case .pending(let pending)? = entries[key] else { return }
        entries[key] = .done(answer, expires: expires)
        for waiter in pending.waiters.values { answered.append((waiter, answer)) }
        pending.waiters.removeAll()
    }

    // MARK: - localhost (RFC 6761)

    /// localhost and *.localhost: the hosts file's address of this family, else the loopback
    /// address for IPv4 and no IPv6 address; never a DNS query.
    private func localhostAnswer(_ key: Key) -> Answer? {
        let name = key.name.hasSuffix(".") ? String(key.name.dropLast()) : key.name
        guard name == "localhost" || name.hasSuffix(".localhost") else { return nil }
        var host: UnsafeMutablePointer<hostent>?
        let status = lock.withLock { _ -> Int32 in
            guard let channel else { return ARES_ENOTINITIALIZED }
            return ares_gethostbyname_file(channel, "localhost", key.family.addressFamily, &host)
        }
        defer { if let host { ares_free_hostent(host) } }
        var addresses: [TCPConnection.Address] = []
        if status == ARES_SUCCESS, let host, let list = host.pointee.h_addr_list, host.pointee.h_addrtype == key.family.addressFamily {
            var index = 0
            while let raw = list[index], addresses.count < 16 {
                index += 1
                addresses.append(Resolver.address(family: key.family, bytes: UnsafeRawPointer(raw)))
            }
        }
        if addresses.isEmpty && key.family == .v4 {
            var loopback = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
            addresses.append(Resolver.address(family: .v4, bytes: &loopback))
        }
        return addresses.isEmpty ? .failure(.noRecord) : .success(addresses)
    }

    private static func address(family: Family, bytes: UnsafeRawPointer) -> TCPConnection.Address {
        var storage = sockaddr_storage()
        let length: Int
        if family == .v4 {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            memcpy(&address.sin_addr, bytes, 4)
            length = MemoryLayout<sockaddr_in>.size
            withUnsafeMutableBytes(of: &storage) { raw in withUnsafeBytes(of: address) { raw.copyMemory(from: $0) } }
        } else {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            memcpy(&address.sin6_addr, bytes, 16)
            length = MemoryLayout<sockaddr_in6>.size
            withUnsafeMutableBytes(of: &storage) { raw in withUnsafeBytes(of: address) { raw.copyMemory(from: $0) } }
        }
        let text = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { TCPConnection.numericHost($0, socklen_t(length)) }
        }
        return TCPConnection.Address(storage: storage, length: socklen_t(length), family: family.addressFamily, text: text)
    }

    // MARK: - Driving c-ares from the reactor

    /// c-ares's socket callback (inside a c-ares call, so holding `lock`): a socket to watch,
    /// a change of interest, or (neither) a socket about to close.
    private func socketStateChanged(_ descriptor: Int32, readable: Bool, writable: Bool) {
        if closing { return }
        if !readable && !writable {
            if let id = watches.removeValue(forKey: descriptor) { reactor.unwatch(id, descriptor: descriptor) }
            return
        }
        if let id = watches[descriptor] {
            reactor.rewatch(id, descriptor: descriptor, readable: readable, writable: writable)
            return
        }
        let id = reactor.watch(descriptor, readable: readable, writable: writable) { [weak self] readable, writable in
            self?.socketReady(descriptor, readable: readable, writable: writable)
        }
        // Not pollable: c-ares's own timeout ends the query.
        if let id { watches[descriptor] = id }
    }

    /// On the engine thread that polls the reactor: one of c-ares's sockets is ready.
    private func socketReady(_ descriptor: Int32, readable: Bool, writable: Bool) {
        withChannelLock {
            // Closed (and perhaps reused) since the event was read: not ours any more.
            guard let channel, watches[descriptor] != nil else { return }
            ares_process_fd(channel, readable ? descriptor : ARES_SOCKET_BAD, writable ? descriptor : ARES_SOCKET_BAD)
            armTimer()
        }
    }

    /// Holding `lock`: makes sure a reactor timer fires by c-ares's next timeout (a retry to
    /// send, a query to give up). An earlier timer already armed covers it; a later one is
    /// superseded (it fires, finds nothing due, and re-arms).
    private func armTimer() {
        guard let channel else { return }
        var buffer = timeval()
        guard let next = ares_timeout(channel, nil, &buffer) else {
            timerArmedAt = .infinity
            return
        }
        let seconds = Double(next.pointee.tv_sec) + Double(next.pointee.tv_usec) / 1e6
        let end = Deadline.now() + seconds
        guard end < timerArmedAt - 0.001 else { return }
        timerArmedAt = end
        let reactor = self.reactor
        // On the engine's threads, not the cooperative pool: a retry or a give-up must not
        // wait behind other work (see `lookup`).
        Task.detached(executorPreference: executor) { [weak self] in
            _ = await reactor.sleep(until: Deadline(secondsFromNow: seconds))
            self?.timerFired(end)
        }
    }

    private func timerFired(_ end: Double) {
        withChannelLock {
            if timerArmedAt == end { timerArmedAt = .infinity }
            guard let channel else { return }
            ares_process_fd(channel, ARES_SOCKET_BAD, ARES_SOCKET_BAD)
            armTimer()
        }
    }

    // MARK: - Failures

    static func failure(status: Int32, seconds: Double) -> LookupFailure {
        switch status {
        case ARES_ENOTFOUND, ARES_ENONAME: return .doesNotExist
        case ARES_ENODATA: return .noRecord
        case ARES_ETIMEOUT: return .timedOut(seconds: seconds)
        case ARES_EBADNAME: return .badName
        case ARES_ESERVFAIL: return .serverFailure("the DNS server failed (SERVFAIL)")
        case ARES_EREFUSED: return .serverFailure("the DNS server refused the query (REFUSED)")
        case ARES_EFORMERR, ARES_EBADRESP, ARES_ENOTIMP, ARES_EOF:
            return .serverFailure("the DNS answer was unusable (\(describe(status)))")
        // c-ares 1.18 ends a query whose every server answered SERVFAIL, NOTIMP or REFUSED (it
        // moves on to the next server after each) with ECONNREFUSED, the same code as for a
        // port nobody listens on: both are the servers' failure, not this machine's.
        case ARES_ECONNREFUSED:
            return .serverFailure("the DNS servers failed or refused the query (SERVFAIL, REFUSED, or nothing listening)")
        case ARES_ENOMEM, ARES_EFILE, ARES_EDESTRUCTION, ARES_ECANCELLED, ARES_ENOTINITIALIZED:
            return .local(describe(status))
        default: return .serverFailure(describe(status))
        }
    }

    static func describe(_ status: Int32) -> String {
        guard let text = ares_strerror(status) else { return "c-ares error \(status)" }
        return String(cString: text)
    }
}

/// The resolver could not start, or `--dns-servers` named something c-ares cannot use.
package struct ResolverSetupError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What went wrong, for code: callers compare this, never `reason`'s text.
    package enum Code: String, Sendable, Hashable, CaseIterable {
        /// c-ares could not start (its library or a channel).
        case libraryUnavailable
        /// c-ares refused the list of servers.
        case serversRefused
    }

    package var code: Code
    /// For people: c-ares's reason.
    package var reason: String
    package var description: String { reason }
}
