#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts

/// What an http:// load showed: the response head, or why there was none.
package typealias CleartextResult = Result<HTTPExchange, ProbeFailure>

extension Prober {
    /// An http:// GET as URLSession makes it when ATS allows cleartext to the host: connect, send
    /// the request, read the response head, all by `request.timeout`. A refused port fails with
    /// `.connectionRefused`; a port that accepts and never answers with `.handshakeTimeout`
    /// ("no HTTP response"), so the caller can tell it from a connect timeout. It runs under the
    /// same limits as a handshake (a descriptor slot, a handshake slot, the runtime's threads):
    /// cancelling the calling task, or shutting the runtime down, ends it at once with a
    /// `.cancelled` failure and closes its socket.
    package func fetchCleartext(_ request: ProbeRequest) async -> CleartextResult {
        let resolver = self.resolver, admission = options.connectionAdmission
        switch await underLimits(timeout: request.timeout, { clock, deadline in
            await CleartextExchange.run(request, deadline: deadline, clock: clock, resolver: resolver, admission: admission)
        }) {
        case .finished(.failure(let failure), let stalled): return .failure(Prober.blamingThisMachine(failure, stalled: stalled))
        case .finished(.success(let exchange), let stalled) where stalled >= Reactor.stallThreshold && exchange.failure != nil:
            return .failure(Prober.blamingThisMachine(ProbeFailure(kind: .other, detail: "the HTTP request failed: \(exchange.failure ?? "")"),
                                                      stalled: stalled))
        case .finished(let result, _): return result
        case .cancelled(let failure): return .failure(failure)
        }
    }
}

enum CleartextExchange {
    static func run(_ request: ProbeRequest, deadline: Deadline, clock: Stopwatch, resolver: Resolver,
                    admission: ConnectionAdmission? = nil) async -> CleartextResult {
        let target = request.target
        let connection: TCPConnection
        do {
            connection = try await TCPConnection.connect(host: target.connectAddress ?? target.host,
                                                   port: target.connectPort ?? target.port, deadline: deadline, resolver: resolver,
                                                   admission: admission.map { (target.host, $0) })
        } catch {
            var failure = error
            failure.elapsedMilliseconds = clock.milliseconds
            return .failure(failure)
        }
        switch await connection.send(Array(HTTPHead.request(for: target).utf8), deadline: deadline) {
        case .bytes: break
        case .timedOut: return .failure(noResponse("the request could not be sent within \(request.timeout) s", clock))
        default: return .success(HTTPExchange(statusCode: nil, failure: "request not sent: connection closed"))
        }
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while head.count < HTTPHead.headLimit {
            switch await connection.receive(into: &buffer, deadline: deadline) {
            case .bytes(let n):
                head += buffer.prefix(n)
                if let end = HTTPHead.endOfHead(head) { return .success(HTTPHead.parse(Array(head.prefix(end)), complete: true)) }
            case .timedOut:
                return head.isEmpty
                    ? .failure(noResponse("connected, but no HTTP response within \(request.timeout) s", clock))
                    : .success(HTTPHead.parse(head, complete: false))
            case .closed, .reset, .failed:
                return head.isEmpty
                    ? .success(HTTPExchange(statusCode: nil, failure: "no response: connection closed"))
                    : .success(HTTPHead.parse(head, complete: false))
            }
        }
        return .success(HTTPHead.parse(Array(head.prefix(HTTPHead.headLimit)), complete: false))
    }

    private static func noResponse(_ detail: String, _ clock: Stopwatch) -> ProbeFailure {
        ProbeFailure(kind: .handshakeTimeout, detail: detail, elapsedMilliseconds: clock.milliseconds)
    }
}
