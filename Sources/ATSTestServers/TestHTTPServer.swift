import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A plain-HTTP loopback server for caIssuers tests: answers GET PATH with the response set for
/// that path (404 for any other) and closes, counting requests per path. Port 0, one thread per
/// connection (LoopbackListener); `stop()` ends them.
package final class TestHTTPServer: Sendable {
    /// One canned answer.
    package struct Response: Sendable {
        package var status: Int
        package var body: [UInt8]
        package var contentType: String
        /// Extra header lines, e.g. "Transfer-Encoding: chunked".
        package var headers: [String]

        package init(status: Int = 200, body: [UInt8], contentType: String = "application/pkix-cert", headers: [String] = []) {
            self.status = status
            self.body = body
            self.contentType = contentType
            self.headers = headers
        }
    }

    private let listener: LoopbackListener
    private let routes: Locked<[String: Response]>
    private let hits: Locked<[String: Int]>

    package var port: Int { listener.port }
    /// "http://127.0.0.1:PORT" + path.
    package func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    private init(listener: LoopbackListener, routes: Locked<[String: Response]>, hits: Locked<[String: Int]>) {
        self.listener = listener
        self.routes = routes
        self.hits = hits
    }

    package static func start() throws -> TestHTTPServer {
        let routes = Locked<[String: Response]>([:])
        let hits = Locked<[String: Int]>([:])
        let listener = try LoopbackListener(bindAddress: "127.0.0.1") { connection in
            serve(connection, routes: routes, hits: hits)
        }
        return TestHTTPServer(listener: listener, routes: routes, hits: hits)
    }

    /// Sets (or replaces) the answer for `path`.
    package func set(_ path: String, _ response: Response) { routes.withLock { $0[path] = response } }

    /// Requests seen for `path` so far.
    package func requests(_ path: String) -> Int { hits.withLock { $0[path] ?? 0 } }

    package func stop() { listener.stop() }

    deinit { stop() }

    private static func serve(_ connection: LoopbackListener.Connection, routes: Locked<[String: Response]>, hits: Locked<[String: Int]>) {
        let fd = connection.fd
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 2048)
        let end: [UInt8] = [13, 10, 13, 10]
        while head.count < 8192, !connection.isStopped() {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { return }
            head += buffer.prefix(count)
            if head.count >= 4, (0...(head.count - 4)).contains(where: { Array(head[$0..<$0 + 4]) == end }) { break }
        }
        let requestLine = String(decoding: head.prefix { $0 != 13 && $0 != 10 }, as: UTF8.self)
        let parts = requestLine.split(separator: " ")
        let path = parts.count >= 2 ? String(parts[1]) : "/"
        hits.withLock { $0[path, default: 0] += 1 }
        let response = routes.withLock { $0[path] } ?? Response(status: 404, body: Array("not found\n".utf8), contentType: "text/plain")
        var text = "HTTP/1.0 \(response.status) \(response.status == 200 ? "OK" : "Error")\r\nContent-Type: \(response.contentType)\r\n"
        if !response.headers.contains(where: { $0.lowercased().hasPrefix("transfer-encoding") }) {
            text += "Content-Length: \(response.body.count)\r\n"
        }
        for header in response.headers { text += header + "\r\n" }
        text += "Connection: close\r\n\r\n"
        HostileServer.sendAll(fd, Array(text.utf8) + response.body)
        HostileServer.closeGracefully(fd)
    }
}
