internal import COpenSSL
internal import CATSProbeShims
internal import OpenSSLSupport
import TLSFacts

/// One client SSL over a TCP socket. OpenSSL reads and writes a byte pipe (a BIO of ours,
/// CATSProbeShims_pipe_*); this class moves the bytes, so it sees exactly what the peer sent
/// (the first bytes, an EOF, a reset) and every wait is an await on the reactor with the deadline.
/// (Memory BIOs zeroed every byte before copying it in: 0.5 million instructions per audit
/// target; callgrind, docs/performance.md.)
final class TLSSession: @unchecked Sendable {  // used by one task at a time
    /// The connection's SSL, owned (and freed, with its BIO) by OpenSSLSupport's SSLObject,
    /// stored inline: no allocation of its own.
    let ssl: SSLObject
    /// The SSL's read and write BIO, owned by the SSL (freed with it).
    private let pipe: OpaquePointer
    let connection: TCPConnection

    /// What the socket did, for classifying a failure.
    private(set) var firstBytes: [UInt8] = []
    private(set) var peerClosed = false
    private(set) var peerReset = false
    private(set) var timedOut = false
    private(set) var socketError: Int32?

    /// An SSL from `context` offering `offer`'s protocol range (the rest of the offer is the
    /// context's: `ClientContext.Settings`).
    init(context: ClientContext, offer: ClientOffer, connection: TCPConnection) throws(ProbeFailure) {
        let owner: SSLObject
        do {
            owner = try SSLObject(context: context.context)
        } catch {
            throw ProbeFailure(kind: .other, detail: "SSL_new failed: \(OpenSSLErrors.describe(error.entries))")
        }
        guard owner.setMinProtocolVersion(Int32(offer.minVersion.rawValue)) == 1,
              owner.setMaxProtocolVersion(Int32(offer.maxVersion.rawValue)) == 1 else {
            throw ProbeFailure(kind: .clientRejected, detail: "cannot offer \(offer): protocol range \(OpenSSLErrors.describe(OpenSSLErrors.drain()))")
        }
        // Thrown below, `owner` goes out of scope and frees the SSL.
        guard let pipe = CATSProbeShims_pipe_new() else {
            throw ProbeFailure(kind: .other, detail: "cannot make the SSL's BIO: \(OpenSSLErrors.describe(OpenSSLErrors.drain()))")
        }
        // An empty pipe means "try again", not EOF, until the socket says so (fill).
        owner.setBIO(pipe)  // one reference, the SSL's, for both directions
        self.ssl = owner
        self.pipe = pipe
        self.connection = connection
    }

    enum Outcome {
        case done(Int32)
        /// SSL_get_error's code and the error queue, drained on this thread.
        case failed(code: Int32, errors: [OpenSSLErrorEntry])
    }

    /// Runs an SSL call until it completes, feeding it socket bytes, within the deadline.
    /// `hold`, when given, is awaited once, when the peer's first bytes are in and before the
    /// call reads them (`ServerHelloHold`); a task cancelled meanwhile ends here.
    /// Not inlined: its frame (with flush's and fill's) exists only while it runs, not for the
    /// whole life of each caller's task.
    @inline(never)
    func drive(deadline: Deadline, holding hold: (@Sendable () async -> Void)? = nil,
               _ call: (borrowing SSLObject) -> Int32) async -> Outcome {
        var hold = hold
        while true {
            OpenSSLErrors.clear()
            let result = call(ssl)
            let code = result > 0 ? SSL_ERROR_NONE : ssl.error(for: result)
            let errors = code == SSL_ERROR_NONE ? [] : OpenSSLErrors.drain()
            // Send whatever OpenSSL wrote (a hello, a finished message, an alert) before deciding.
            let flushed = await flush(deadline: deadline)
            if code == SSL_ERROR_NONE {
                return flushed ? .done(result) : .failed(code: SSL_ERROR_SYSCALL, errors: [])
            }
            guard code == SSL_ERROR_WANT_READ, flushed, !peerClosed else {
                return .failed(code: code, errors: errors)
            }
            guard await fill(deadline: deadline) else { return .failed(code: SSL_ERROR_SYSCALL, errors: errors) }
            if let held = hold, !peerClosed {
                hold = nil
                await held()
                if Task.isCancelled { return .failed(code: SSL_ERROR_SYSCALL, errors: []) }
            }
        }
    }

    /// Writes the write BIO's bytes to the socket. False when the socket failed.
    @discardableResult
    func flush(deadline: Deadline) async -> Bool {
        while true {
            // Exactly what is pending (at most flushLimit), copied once into an array of its size.
            var available = 0
            guard let output = CATSProbeShims_pipe_output(pipe, &available), available > 0 else { break }
            let pending = min(available, TLSSession.flushLimit)
            let bytes = Array(UnsafeBufferPointer(start: output, count: pending))
            CATSProbeShims_pipe_consume_output(pipe, pending)
            switch await connection.send(bytes, deadline: deadline) {
            case .bytes: continue
            case .timedOut: timedOut = true; return false
            case .reset: peerReset = true; return false
            case .closed: peerClosed = true; return false
            case .failed(let error): socketError = error; return false
            }
        }
        return true
    }

    /// At most this much of the write BIO is read and sent at once (a flight is a few KiB).
    static let flushLimit = 64 * 1024
    static let receiveSize = 16 * 1024

    /// Reads one batch from the socket into the read BIO. On EOF the BIO reports EOF to OpenSSL.
    /// The bytes pass through a buffer lent for the read alone (`TCPConnection.receive(upTo:)`):
    /// a 16 KiB buffer kept per session was 9% of the heap at 1,000 connections in flight
    /// (heaptrack, docs/performance.md), held while the session waited for the peer.
    private func fill(deadline: Deadline) async -> Bool {
        let result = await connection.receive(upTo: TLSSession.receiveSize, deadline: deadline) { bytes in
            if firstBytes.count < 8 { firstBytes += bytes.prefix(8 - firstBytes.count) }
            _ = CATSProbeShims_pipe_feed(pipe, bytes.baseAddress, bytes.count)
        }
        switch result {
        case .bytes:
            return true
        case .closed:
            peerClosed = true
            CATSProbeShims_pipe_set_eof(pipe)
            return true  // let OpenSSL consume what is buffered, then see the EOF
        case .reset: peerReset = true; return false
        case .timedOut: timedOut = true; return false
        case .failed(let error): socketError = error; return false
        }
    }

    /// True when the peer's first bytes cannot start a TLS record (content type 20-24, version 3.x).
    var firstBytesAreNotTLS: Bool {
        guard let type = firstBytes.first else { return false }
        if !(20...24).contains(type) { return true }
        return firstBytes.count >= 2 && firstBytes[1] != 3
    }
}
