internal import NIOCore
internal import NIOHPACK

/// How a test server's HTTP/2 goes wrong, for failure tests.
package enum HTTP2Fault: Sendable, Hashable {
    /// A frame header announcing 1 MiB, over the client's 16 KiB maximum.
    case oversizedFrame
    /// HEADERS without END_HEADERS, then CONTINUATION frames that never end (until stopped).
    case endlessContinuation
    /// A header block HPACK cannot decode.
    case undecodableHeaders
    /// GOAWAY instead of a response.
    case goAway
    /// The response with this `:status` value, as written ("+99", "-01", "1000").
    case status(String)
}

/// The server half of one HTTP/2 request (RFC 9113) after ALPN chose h2: read the preface and
/// the request's HEADERS on stream 1, answer with HEADERS and DATA. HPACK by NIOHPACK. Reads and
/// writes go through closures over the SSL connection; every loop is bounded.
struct HTTP2Responder {
    let read: (inout [UInt8]) -> Int
    let write: ([UInt8]) -> Bool
    let isStopped: () -> Bool

    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    static func frame(type: UInt8, flags: UInt8 = 0, stream: UInt32 = 0, payload: [UInt8] = []) -> [UInt8] {
        let length = payload.count
        return [UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF), type, flags,
                UInt8(stream >> 24 & 0x7F), UInt8(stream >> 16 & 0xFF), UInt8(stream >> 8 & 0xFF), UInt8(stream & 0xFF)] + payload
    }

    func serve(_ http: HTTPBehavior, fault: HTTP2Fault?) {
        guard let path = readRequestPath() else { return }
        guard write(HTTP2Responder.frame(type: 4)) else { return }  // our SETTINGS
        switch fault {
        case .oversizedFrame?:
            _ = write([0x10, 0x00, 0x00, 0x01, 0x04, 0, 0, 0, 1] + [UInt8](repeating: 0, count: 64))
            return
        case .endlessContinuation?:
            guard write(HTTP2Responder.frame(type: 1, flags: 0, stream: 1, payload: [0x88])) else { return }
            for _ in 0..<100_000 where !isStopped() {
                guard write(HTTP2Responder.frame(type: 9, flags: 0, stream: 1, payload: [UInt8](repeating: 0x40, count: 1024))) else { return }
            }
            return
        case .undecodableHeaders?:
            _ = write(HTTP2Responder.frame(type: 1, flags: 0x04, stream: 1, payload: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF]))
            return
        case .goAway?:
            _ = write(HTTP2Responder.frame(type: 7, payload: [0, 0, 0, 0, 0, 0, 0, 0x0B]))  // ENHANCE_YOUR_CALM
            return
        case nil, .status?:
            break
        }
        guard let (status, extra, body) = http.resolved(for: path).parts() else { return }
        var encoder = HPACKEncoder(allocator: ByteBufferAllocator())
        var block = ByteBufferAllocator().buffer(capacity: 128)
        var statusText = String(status)
        if case .status(let raw)? = fault { statusText = raw }
        let headers = [(":status", statusText), ("content-type", "text/plain"), ("server", "atsprobe-test-h2")]
            + extra.map { ($0.0.lowercased(), $0.1) }
        guard (try? encoder.encode(headers: HPACKHeaders(headers), to: &block)) != nil else { return }
        _ = write(HTTP2Responder.frame(type: 1, flags: 0x04, stream: 1, payload: Array(block.readableBytesView))
                  + HTTP2Responder.frame(type: 0, flags: 0x01, stream: 1, payload: Array(body.utf8))
                  + HTTP2Responder.frame(type: 7, payload: [0, 0, 0, 1, 0, 0, 0, 0]))
    }

    /// The preface, then frames until stream 1's request headers end; their :path.
    private func readRequestPath() -> String? {
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        var block: [UInt8] = []
        var sawPreface = false
        for _ in 0..<1_000 where !isStopped() {
            if !sawPreface, pending.count >= HTTP2Responder.preface.count {
                guard Array(pending.prefix(HTTP2Responder.preface.count)) == HTTP2Responder.preface else { return nil }
                pending.removeFirst(HTTP2Responder.preface.count)
                sawPreface = true
            }
            if sawPreface, pending.count >= 9 {
                let length = Int(pending[0]) << 16 | Int(pending[1]) << 8 | Int(pending[2])
                guard length <= 16_384 else { return nil }
                if pending.count >= 9 + length {
                    let type = pending[3], flags = pending[4]
                    let payload = Array(pending[9..<(9 + length)])
                    pending.removeFirst(9 + length)
                    if type == 1 || type == 9 {  // HEADERS (the client sends neither padding nor priority) or CONTINUATION
                        block += payload
                        if flags & 0x04 != 0 {
                            var decoder = HPACKDecoder(allocator: ByteBufferAllocator())
                            var buffer = ByteBufferAllocator().buffer(bytes: block)
                            return (try? decoder.decodeHeaders(from: &buffer))?.first(name: ":path")
                        }
                    }
                    continue
                }
            }
            let count = read(&chunk)
            guard count > 0 else { return nil }
            pending += chunk.prefix(count)
            guard pending.count < 64 * 1024 else { return nil }
        }
        return nil
    }
}
