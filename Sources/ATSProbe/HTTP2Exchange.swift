internal import NIOCore
internal import NIOHPACK
import TLSFacts

/// The GET over HTTP/2 (RFC 9113) when the server selected h2 by ALPN: the connection preface,
/// one HEADERS frame on stream 1, then frames read until that stream's response headers. Only
/// the head is wanted, so DATA is never read and flow control never matters. Headers are
/// HPACK-coded by swift-nio-http2's NIOHPACK. Every read is bounded: frame size, header block
/// size, frame count, and the caller's deadline.
struct HTTP2Exchange {
    /// Writes all bytes; a failure text when the connection failed.
    let write: ([UInt8]) async -> String?
    /// Reads some bytes; empty means the peer closed. A failure text when the connection failed.
    let read: () async -> Result<[UInt8], HTTP2Exchange.ReadFailure>

    struct ReadFailure: Error { var text: String }

    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
    /// SETTINGS_MAX_FRAME_SIZE's initial value: we announce no larger one.
    static let maxFrameSize = 16_384
    /// Frames read before giving up on a server that never sends the response headers.
    static let frameLimit = 1_000

    enum FrameType: UInt8 {
        case data = 0, headers = 1, priority = 2, rstStream = 3, settings = 4, pushPromise = 5, ping = 6, goAway = 7,
             windowUpdate = 8, continuation = 9
    }

    struct Frame {
        var type: UInt8
        var flags: UInt8
        var stream: UInt32
        var payload: [UInt8]
    }

    static func frame(_ type: FrameType, flags: UInt8 = 0, stream: UInt32 = 0, payload: [UInt8] = []) -> [UInt8] {
        let length = payload.count
        return [UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF), type.rawValue, flags,
                UInt8(stream >> 24 & 0x7F), UInt8(stream >> 16 & 0xFF), UInt8(stream >> 8 & 0xFF), UInt8(stream & 0xFF)] + payload
    }

    /// The request's header block: pseudo-headers first (RFC 9113 8.3.1).
    static func requestHeaders(for target: Target) throws -> [UInt8] {
        let host = target.host.contains(":") ? "[\(target.host)]" : target.host
        let authority = target.port == 443 ? host : "\(host):\(target.port)"
        var encoder = HPACKEncoder(allocator: ByteBufferAllocator())
        var buffer = ByteBufferAllocator().buffer(capacity: 256)
        try encoder.encode(headers: HPACKHeaders([(":method", "GET"), (":scheme", "https"), (":authority", authority),
                                                  (":path", target.path), ("user-agent", "atsprobe"), ("accept", "*/*")]),
                           to: &buffer)
        return Array(buffer.readableBytesView)
    }

    func run(target: Target) async -> HTTPExchange {
        let block: [UInt8]
        do {
            block = try HTTP2Exchange.requestHeaders(for: target)
        } catch {
            return HTTPExchange(statusCode: nil, failure: "HTTP/2 request not encoded: \(error)")
        }
        // SETTINGS_ENABLE_PUSH = 0: no PUSH_PROMISE to skip.
        let settings = HTTP2Exchange.frame(.settings, payload: [0x00, 0x02, 0, 0, 0, 0])
        let headers = HTTP2Exchange.frame(.headers, flags: 0x05, stream: 1, payload: block)  // END_STREAM | END_HEADERS
        if let failure = await write(HTTP2Exchange.preface + settings + headers) {
            return HTTPExchange(statusCode: nil, failure: "HTTP/2 request not sent: \(failure)")
        }

        var decoder = HPACKDecoder(allocator: ByteBufferAllocator(), maxDynamicTableSize: HPACKDecoder.maxDynamicTableSize,
                                   maxHeaderListSize: HTTPHead.headLimit)
        var pending: [UInt8] = []
        var headerBlock: [UInt8]?  // set while a header block continues in CONTINUATION frames
        var received = 0
        for _ in 0..<HTTP2Exchange.frameLimit {
            let next: Frame
            switch await readFrame(&pending, received: &received) {
            case .failure(let failure):
                return HTTPExchange(statusCode: nil, failure: failure.text)
            case .success(let frame):
                next = frame
            }
            let type = FrameType(rawValue: next.type)
            if let block = headerBlock {
                // RFC 9113 6.10: nothing may come between HEADERS and its CONTINUATION frames.
                guard type == .continuation, next.stream == 1 else {
                    return HTTPExchange(statusCode: nil, failure: "HTTP/2 header block interrupted by a frame of type \(next.type)")
                }
                headerBlock = block + next.payload
            } else {
                switch type {
                case .headers? where next.stream == 1:
                    guard let fragment = HTTP2Exchange.headerFragment(next) else {
                        return HTTPExchange(statusCode: nil, failure: "malformed HTTP/2 HEADERS frame")
                    }
                    headerBlock = fragment
                case .settings? where next.flags & 0x01 == 0:
                    _ = await write(HTTP2Exchange.frame(.settings, flags: 0x01))  // ACK; the response does not depend on it
                    continue
                case .rstStream? where next.stream == 1:
                    return HTTPExchange(statusCode: nil, failure: "HTTP/2 stream reset by the server (error \(HTTP2Exchange.errorCode(next.payload, at: 0)))")
                case .goAway?:
                    return HTTPExchange(statusCode: nil, failure: "HTTP/2 GOAWAY before the response (error \(HTTP2Exchange.errorCode(next.payload, at: 4)))")
                default:
                    continue  // DATA of other streams, PING, WINDOW_UPDATE, PRIORITY, unknown types
                }
            }
            guard let block = headerBlock else { continue }
            guard block.count <= HTTPHead.headLimit else {
                return HTTPExchange(statusCode: nil, failure: "HTTP/2 response header block over \(HTTPHead.headLimit) bytes")
            }
            guard next.flags & 0x04 != 0 else { continue }  // END_HEADERS not yet
            headerBlock = nil
            var buffer = ByteBufferAllocator().buffer(bytes: block)
            let decoded: HPACKHeaders
            do {
                decoded = try decoder.decodeHeaders(from: &buffer)
            } catch {
                return HTTPExchange(statusCode: nil, failure: "HTTP/2 response headers not decodable (HPACK): \(error)")
            }
            guard let status = decoded.first(name: ":status"), let code = HTTP2Exchange.statusCode(status) else {
                return HTTPExchange(statusCode: nil, failure: "HTTP/2 response without a valid :status")
            }
            if (100...199).contains(code) { continue }  // interim response; the final one follows
            return HTTPExchange(statusCode: code, location: decoded.first(name: "location").map { String($0.prefix(4096)) },
                                server: decoded.first(name: "server").map { String($0.prefix(1024)) })
        }
        return HTTPExchange(statusCode: nil, failure: "no HTTP/2 response headers in \(HTTP2Exchange.frameLimit) frames")
    }

    /// Reads one whole frame, refusing frames over the announced maximum size.
    private func readFrame(_ pending: inout [UInt8], received: inout Int) async -> Result<Frame, ReadFailure> {
        while true {
            if pending.count >= 9 {
                let length = Int(pending[0]) << 16 | Int(pending[1]) << 8 | Int(pending[2])
                guard length <= HTTP2Exchange.maxFrameSize else {
                    return .failure(ReadFailure(text: "HTTP/2 frame of \(length) bytes, over the \(HTTP2Exchange.maxFrameSize) allowed"))
                }
                if pending.count >= 9 + length {
                    let stream = UInt32(pending[5] & 0x7F) << 24 | UInt32(pending[6]) << 16 | UInt32(pending[7]) << 8 | UInt32(pending[8])
                    let frame = Frame(type: pending[3], flags: pending[4], stream: stream, payload: Array(pending[9..<(9 + length)]))
                    pending.removeFirst(9 + length)
                    return .success(frame)
                }
            }
            switch await read() {
            case .failure(let failure): return .failure(failure)
            case .success(let bytes) where bytes.isEmpty:
                return .failure(ReadFailure(text: received == 0 ? "no response: connection closed" : "HTTP/2 connection closed before the response"))
            case .success(let bytes):
                received += bytes.count
                pending += bytes
            }
        }
    }

    /// The header block fragment of a HEADERS frame, without padding and priority fields.
    static func headerFragment(_ frame: Frame) -> [UInt8]? {
        var payload = ArraySlice(frame.payload)
        var padding = 0
        if frame.flags & 0x08 != 0 {  // PADDED
            guard let length = payload.first else { return nil }
            padding = Int(length)
            payload = payload.dropFirst()
        }
        if frame.flags & 0x20 != 0 {  // PRIORITY
            guard payload.count >= 5 else { return nil }
            payload = payload.dropFirst(5)
        }
        guard payload.count >= padding else { return nil }
        return Array(payload.dropLast(padding))
    }

    /// The status of a `:status` value: exactly three ASCII digits, 100 to 599 (RFC 9113
    /// section 8.3.2: "the HTTP status code", RFC 9110 section 15: three digits, 1xx to 5xx).
    /// `Int("+99")` is 99 and `Int("-01")` is -1, so the digits are checked one by one.
    static func statusCode(_ value: String) -> Int? {
        let digits = Array(value.utf8)
        guard digits.count == 3, digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        let code = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        return (100...599).contains(code) ? code : nil
    }

    static func errorCode(_ payload: [UInt8], at offset: Int) -> UInt32 {
        guard payload.count >= offset + 4 else { return 0 }
        return payload[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
