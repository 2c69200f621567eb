/// How a test server answers the HTTP request after the handshake.
public indirect enum HTTPBehavior: Sendable {
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

    /// The behaviour for one request path, with `perPath` resolved (nested tables resolve again).
    func resolved(for path: String) -> HTTPBehavior {
        guard case .perPath(let table) = self else { return self }
        let withoutQuery = String(path.prefix { $0 != "?" })
        guard let match = table[path] ?? table[withoutQuery] else { return .status(404) }
        return match.resolved(for: path)
    }

    /// Status, extra headers and body, or nil to close without answering (resolve `perPath` first).
    func parts() -> (status: Int, headers: [(String, String)], body: String)? {
        let (status, extraHeaders): (Int, [(String, String)]) = switch self {
        case .ok: (200, [])
        case .redirect(let location): (301, [("Location", location)])
        case .status(let code): (code, [])
        case .noResponse, .perPath: (0, [])
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
