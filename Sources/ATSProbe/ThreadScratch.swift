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
    /// The regions of a thread's block.
    enum Region {
        case receive
        case events

        /// Its size in bytes (each a multiple of 64).
        var size: Int { self == .receive ? 16 * 1024 : 4 * 1024 }
        /// Where it starts in the block.
        var offset: Int { self == .receive ? 0 : Region.receive.size }
    }

    private static let blockSize = Region.receive.size + Region.events.size

    /// The key under which each thread keeps its block, freed with the thread; nil when the
    /// process has used all PTHREAD_KEYS_MAX.
    private static let key: pthread_key_t? = {
        var key = pthread_key_t()
        return pthread_key_create(&key, { block in free(block) }) == 0 ? key : nil
    }()

    /// Runs `body` with `region` of this thread's block. `body` must not call back into a use of
    /// the same region on this thread.
    static func withRegion<Result>(_ region: Region, _ body: (UnsafeMutableRawBufferPointer) -> Result) -> Result {
        guard let block = threadBlock() else {
            // No key, or no memory for a block: a buffer for this call alone, as before.
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: region.size, alignment: 64)
            defer { buffer.deallocate() }
            return body(buffer)
        }
        return body(UnsafeMutableRawBufferPointer(start: block + region.offset, count: region.size))
    }

    /// This thread's block, allocated on its first use.
    private static func threadBlock() -> UnsafeMutableRawPointer? {
        guard let key else { return nil }
        if let block = pthread_getspecific(key) { return block }
        var allocated: UnsafeMutableRawPointer?
        guard posix_memalign(&allocated, 64, blockSize) == 0, let allocated else { return nil }
        pthread_setspecific(key, allocated)
        return allocated
    }
}
