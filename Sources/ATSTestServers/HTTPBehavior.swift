/// How a test server answers the HTTP request after the handshake.
package indirect enum HTTPBehavior: Sendable {
    /// 200 OK with a small text body.
    case ok
    /// 301 Moved Permanently with this Location.
    case redirect(to: String)
    /// This status code and a small body.
    case status(Int)
    /// Complete the handshake, then close without reading or answering.
    case noResponse
    /// Behaviour by request path (query ignored when no exact match); unmatched paths get 404.
    case perPath([String: HTTPBehavior])
    /// These bytes as the whole response, as they are (a Location holding CR LF, a bad head).
    case raw([UInt8])
    /// These bytes one at a time, `intervalMilliseconds` apart (a head trickled past a deadline).
    case trickle([UInt8], intervalMilliseconds: Int)
    /// A status line, then header lines without end (until the client leaves, at most 8 MiB).
    case endlessHeaders
    /// A complete head, then a body without end (until the client leaves, at most 8 MiB).
    case endlessBody
    /// Ask for a renegotiation (TLS 1.2 HelloRequest) before answering like `then`.
    case renegotiate(then: HTTPBehavior)
    /// Reset the connection (RST) instead of answering.
    case reset
    /// The first `hold.count` requests (over HTTP/1.1) get no answer until the server stops
    /// (at most 120 s); every later one is answered like `then`. For a client that must be
    /// caught waiting on a request while something happens to it (SIGSTOP).
    case held(HTTPHold, then: HTTPBehavior)

    /// The behaviour for one request path, with `perPath` resolved (nested tables resolve again).
    func resolved(for path: String) -> HTTPBehavior {
        guard case .perPath(let table) = self else { return self }
        let withoutQuery = String(path.prefix { $0 != "?" })
        guard let match = table[path] ?? table[withoutQuery] else { return .status(404) }
        return match.resolved(for: path)
    }

    /// Status, extra headers and body, or nil to close without answering (resolve `perPath` first).
    func parts() -> (status: Int, headers: [(String, String)], body: String)? {
        if case .held(_, let then) = self { return then.parts() }
        let (status, extraHeaders): (Int, [(String, String)]) = switch self {
        case .ok: (200, [])
        case .redirect(let location): (301, [("Location", location)])
        case .status(let code): (code, [])
        case .noResponse, .held, .perPath, .raw, .trickle, .endlessHeaders, .endlessBody, .renegotiate, .reset: (0, [])
        }
        guard status > 0 else { return nil }
        let reason = Self.reasonPhrases[status] ?? "Status"
        return (status, extraHeaders, "\(status) \(reason) from atsprobe test server\n")
    }

    /// The full HTTP/1.1 response bytes, or nil to close without answering.
    func response() -> [UInt8]? {
        guard let (status, extraHeaders, body) = parts() else { return nil }
        let reason = Self.reasonPhrases[status] ?? "Status"
        let headers = ["HTTP/1.1 \(status) \(reason)", "Content-Type: text/plain", "Content-Length: \(body.utf8.count)",
                       "Connection: close"] + extraHeaders.map { "\($0.0): \($0.1)" }
        return Array((headers.joined(separator: "\r\n") + "\r\n\r\n" + body).utf8)
    }

    private static let reasonPhrases: [Int: String] = [
        200: "OK", 204: "No Content", 301: "Moved Permanently", 302: "Found", 304: "Not Modified",
        307: "Temporary Redirect", 308: "Permanent Redirect", 400: "Bad Request", 401: "Unauthorized",
        403: "Forbidden", 404: "Not Found", 500: "Internal Server Error", 503: "Service Unavailable",
    ]
}

/// Which requests `HTTPBehavior.held` holds: the first `count`, counted across connections.
package final class HTTPHold: Sendable {
    package let count: Int
    private let taken = Locked(0)

    package init(count: Int) { self.count = count }

    /// Requests held so far.
    package var held: Int { taken.withLock { min($0, count) } }

    /// True for the first `count` calls.
    func takes() -> Bool {
        taken.withLock { taken in
            defer { taken += 1 }
            return taken < count
        }
    }
}
