#if os(Linux)
import Glibc
internal import CEpoll

/// `ReactorBackend` over Linux's epoll, woken by an eventfd (id 0 in the epoll set).
struct EpollReactorBackend: ReactorBackend {
    private let epoll: Int32
    private let wakeDescriptor: Int32

    init() throws(ReactorBackendError) {
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else { throw ReactorBackendError(call: "epoll_create1", errno: errno) }
        wakeDescriptor = eventfd(0, Int32(EFD_CLOEXEC) | Int32(EFD_NONBLOCK))
        guard wakeDescriptor >= 0 else {
            let error = errno
            Glibc.close(epoll)
            throw ReactorBackendError(call: "eventfd", errno: error)
        }
        var event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(u64: 0))
        epoll_ctl(epoll, EPOLL_CTL_ADD, wakeDescriptor, &event)
    }

    func armOnce(_ descriptor: Int32, id: UInt64, for interest: ReactorInterest) -> Bool {
        let events = (interest == .readable ? EPOLLIN.rawValue : EPOLLOUT.rawValue) | EPOLLONESHOT.rawValue
        var event = epoll_event(events: events, data: epoll_data_t(u64: id))
        // MOD when a registration outlived its waiter (a deadline that passed before the reactor
        // removed it): the descriptor is still in the epoll set.
        return epoll_ctl(epoll, EPOLL_CTL_ADD, descriptor, &event) == 0
            || (errno == EEXIST && epoll_ctl(epoll, EPOLL_CTL_MOD, descriptor, &event) == 0)
    }

    func watch(_ descriptor: Int32, id: UInt64, readable: Bool, writable: Bool) -> Bool {
        var event = epoll_event(events: Self.events(readable, writable), data: epoll_data_t(u64: id))
        return epoll_ctl(epoll, EPOLL_CTL_ADD, descriptor, &event) == 0
    }

    func rewatch(_ descriptor: Int32, id: UInt64, readable: Bool, writable: Bool) {
        var event = epoll_event(events: Self.events(readable, writable), data: epoll_data_t(u64: id))
        epoll_ctl(epoll, EPOLL_CTL_MOD, descriptor, &event)
    }

    func remove(_ descriptor: Int32) {
        epoll_ctl(epoll, EPOLL_CTL_DEL, descriptor, nil)
    }

    func wait(milliseconds: Int32, _ ready: (_ id: UInt64, _ readiness: ReactorReadiness) -> Void) {
        // The thread's events region (ThreadScratch): 256 events, 3 KiB, not a malloc per poll.
        ThreadScratch.withRegion(.events) { region in
            let events = UnsafeMutableBufferPointer(start: region.bindMemory(to: epoll_event.self).baseAddress!,
                                                    count: min(256, region.count / MemoryLayout<epoll_event>.stride))
            let count = epoll_wait(epoll, events.baseAddress, Int32(events.count), milliseconds)
            guard count > 0 else { return }
            for index in 0..<Int(count) {
                let id = events[index].data.u64
                if id == 0 {
                    var drained: UInt64 = 0
                    _ = read(wakeDescriptor, &drained, 8)
                    continue
                }
                let flags = events[index].events
                ready(id, ReactorReadiness(readable: flags & (EPOLLIN.rawValue | EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0,
                                           writable: flags & EPOLLOUT.rawValue != 0))
            }
        }
    }

    func wake() {
        var one: UInt64 = 1
        _ = write(wakeDescriptor, &one, 8)
    }

    func close() {
        Glibc.close(epoll)
        Glibc.close(wakeDescriptor)
    }

    private static func events(_ readable: Bool, _ writable: Bool) -> UInt32 {
        (readable ? EPOLLIN.rawValue : 0) | (writable ? EPOLLOUT.rawValue : 0)
    }
}
#endif
