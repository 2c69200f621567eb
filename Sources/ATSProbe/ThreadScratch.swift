#if canImport(Glibc)
import Glibc
#endif

/// Memory of the calling thread's own, lent to one synchronous call at a time and back before
/// it returns: a `recv` (`TCPConnection.receiveOnce`) and an `epoll_wait`
/// (`EpollReactorBackend.wait`). Each use has its own region, so the two never share bytes.
///
/// `withUnsafeTemporaryAllocation` put these on the heap (anything over 1,024 bytes): a 16 KiB
/// malloc and free at every read and a 3 KiB one at every poll, 44 and 25 an audited target,
/// each over the tcache's 1,032 bytes and so taken under the thread's malloc arena lock, the lock
/// the other engine thread takes to free what this one allocated, and each first merging the
/// arena's fast bins (`malloc_consolidate`, 0.46 M instructions an audited target;
/// docs/performance.md, "Session 9"). Here each thread allocates its regions once, on first use,
/// and frees them when it exits (a pthread key's destructor).
enum ThreadScratch {
    /// The regions, and their sizes in bytes.
    enum Region: Int {
        case receive
        case events

        var size: Int {
            switch self {
            case .receive: 16 * 1024
            case .events: 4 * 1024
            }
        }

        /// Where the region starts in the thread's block (each a multiple of 64 bytes).
        var offset: Int { self == .receive ? 0 : Region.receive.size }
    }

    private static let blockSize = Region.receive.size + Region.events.size

    /// The key under which each thread keeps its block; freed with the thread.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        // Without a key (the process has used all PTHREAD_KEYS_MAX), `withRegion` allocates
        // per call, as before.
        guard pthread_key_create(&key, { block in free(block) }) == 0 else { return pthread_key_t(UInt32.max) }
        return key
    }()

    /// Runs `body` with `region` of this thread's block (`count` bytes at most `region.size`).
    /// `body` must not call back into a use of the same region on this thread.
    static func withRegion<Result>(_ region: Region, _ body: (UnsafeMutableRawBufferPointer) -> Result) -> Result {
        guard key != pthread_key_t(UInt32.max) else {
            let block = UnsafeMutableRawBufferPointer.allocate(byteCount: region.size, alignment: 64)
            defer { block.deallocate() }
            return body(block)
        }
        var block = pthread_getspecific(key)
        if block == nil {
            var allocated: UnsafeMutableRawPointer?
            guard posix_memalign(&allocated, 64, blockSize) == 0, let allocated else {
                let fallback = UnsafeMutableRawBufferPointer.allocate(byteCount: region.size, alignment: 64)
                defer { fallback.deallocate() }
                return body(fallback)
            }
            pthread_setspecific(key, allocated)
            block = allocated
        }
        return body(UnsafeMutableRawBufferPointer(start: block! + region.offset, count: region.size))
    }
}
