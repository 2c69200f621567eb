#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization
internal import COpenSSL
internal import CATSProbeShims
internal import OpenSSLSupport
import TLSFacts

/// Fetches a certificate's caIssuers (Authority Information Access) URLs when the served chain
/// does not reach an anchor, as Apple's trustd does (SecCAIssuerRequest.m): http only; the body
/// is one DER certificate, a certs-only PKCS#7 (CMS) message, or, as Apple also accepts, PEM.
/// Each URL is fetched at most once per Prober (one run), and the answer shared by every probe
/// and target that asks for it. Everything here is untrusted network input: the size is bounded,
/// every wait ends by the probe's deadline, and a failure is a value, never a hang.
final class IssuerFetcher: Sendable {
    /// Bytes read at most for a response (head and body): intermediates are 1-2 KB, bundles a few.
    static let responseLimit = 64 * 1024
    /// Apple skips the fetch when a certificate names this many caIssuers URLs or more
    /// (SecCAIssuerRequest.m, CA_ISSUERS_REQUEST_THRESHOLD).
    static let urlThreshold = 10
    /// Fetched issuers added to one path at most (each may need its own issuer fetched).
    static let hopLimit = 4
    /// Distinct URLs remembered per run; past this, fetching stops (a hostile target list
    /// cannot grow memory without bound).
    static let cacheLimit = 10_000

    /// What one URL gave: DER certificates, or why not.
    enum Outcome: Sendable, Equatable {
        case certificates([[UInt8]])
        case failure(String)
    }

    /// One URL's fetch, started by the first probe that asks; a second asker awaits the same
    /// task (suspended, holding no thread) instead of fetching again. `outcome` is set when it ends.
    private final class Entry: Sendable {
        let outcome = Mutex<Outcome?>(nil)
        let download: Task<Outcome, Never>

        init(url: String, deadline: Deadline) {
            // On the probe's runtime, as the probes are (its threads, counted for its shutdown).
            download = ProbeRuntime.current.task(orElse: .failure("not fetched: the probe runtime is shut down")) {
                await IssuerFetcher.download(url, deadline: deadline)
            }
        }
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let counter = Atomic<Int>(0)

    /// Network fetches made so far (cache hits not counted): the tests' proof of "once per run".
    var fetchesMade: Int { counter.load(ordering: .relaxed) }

    func fetch(_ url: String, deadline: Deadline) async -> Outcome {
        let entry: Entry? = entries.withLock { entries in
            if let entry = entries[url] { return entry }
            guard entries.count < IssuerFetcher.cacheLimit else { return nil }
            counter.add(1, ordering: .relaxed)
            let entry = Entry(url: url, deadline: deadline)
            entries[url] = entry
            return entry
        }
        guard let entry else { return .failure("not fetched: more than \(IssuerFetcher.cacheLimit) caIssuers URLs in this run") }
        let outcome = await entry.download.value
        entry.outcome.withLock { $0 = outcome }
        return outcome
    }

    /// A certificate that issued `cert`, from the answers already fetched for its caIssuers URLs
    /// (never fetching): the issuer an embedded SCT's signature needs when the server did not
    /// send it.
    func fetchedIssuer(of cert: X509Certificate) -> X509Certificate? {
        defer { OpenSSLErrors.clear() }
        for url in IssuerFetcher.caIssuerURLs(of: cert.pointer) {
            guard let entry = entries.withLock({ $0[url] }),
                  case .certificates(let ders)? = entry.outcome.withLock({ $0 }) else { continue }
            for der in ders {
                if let parent = try? X509Certificate(der: der), X509_check_issued(parent.pointer, cert.pointer) == X509_V_OK { return parent }
            }
        }
        return nil
    }

    /// http://host[:port]/path, with the host as a name, IPv4 or [IPv6].
    struct HTTPURL: Equatable {
        var host: String
        var port: Int
        var path: String
        var hostHeader: String

        init?(_ text: String) {
            guard text.count <= 2048, text.lowercased().hasPrefix("http://") else { return nil }
            let rest = text.dropFirst(7)
            let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
            let authority = String(rest[..<authorityEnd])
            var path = String(rest[authorityEnd...])
            if let fragment = path.firstIndex(of: "#") { path = String(path[..<fragment]) }
            if path.isEmpty || path.hasPrefix("?") { path = "/" + path }
            guard !authority.isEmpty, !authority.contains("@"),
                  path.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else { return nil }
            var host = authority
            var port = 80
            if authority.hasPrefix("[") {
                guard let close = authority.firstIndex(of: "]") else { return nil }
                host = String(authority[authority.index(after: authority.startIndex)..<close])
                let after = authority[authority.index(after: close)...]
                if !after.isEmpty {
                    guard after.hasPrefix(":"), let value = Int(after.dropFirst()), (1...65535).contains(value) else { return nil }
                    port = value
                }
            } else if let colon = authority.lastIndex(of: ":") {
                host = String(authority[..<colon])
                guard let value = Int(authority[authority.index(after: colon)...]), (1...65535).contains(value) else { return nil }
                port = value
            }
            guard !host.isEmpty, host.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F && $0 != "/" }) else { return nil }
            self.host = host
            self.port = port
            self.path = path
            hostHeader = authority
        }
    }

    static func download(_ url: String, deadline: Deadline) async -> Outcome {
        guard let parsed = HTTPURL(url) else {
            return .failure(url.lowercased().hasPrefix("http://") ? "not a usable http URL" : "skipped: Apple fetches http caIssuers URLs only")
        }
        let connection: TCPConnection
        do {
            connection = try await TCPConnection.connect(host: parsed.host, port: parsed.port, deadline: deadline)
        } catch {
            return .failure(error.kind == .connectTimeout ? "connect timed out" : "cannot connect (\(error.kind.rawValue))")
        }
        let request = "GET \(parsed.path) HTTP/1.0\r\nHost: \(parsed.hostHeader)\r\nAccept: */*\r\nUser-Agent: atsprobe\r\nConnection: close\r\n\r\n"
        switch await connection.send(Array(request.utf8), deadline: deadline) {
        case .bytes: break
        case .timedOut: return .failure("request timed out")
        default: return .failure("request not sent")
        }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        reading: while true {
            switch await connection.receive(into: &buffer, deadline: deadline) {
            case .bytes(let n):
                response += buffer.prefix(n)
                if response.count > responseLimit { return .failure("response larger than \(responseLimit / 1024) KiB") }
            case .closed: break reading
            case .timedOut: return .failure("timed out after \(response.count) bytes")
            case .reset: return .failure("connection reset")
            case .failed(let code): return .failure("read failed (errno \(code))")
            }
        }
        return parse(response)
    }

    /// The status must be 200; the body (bounded by Content-Length when given) is decoded.
    static func parse(_ response: [UInt8]) -> Outcome {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let headEnd = response.indices.dropLast(3).first(where: { Array(response[$0..<$0 + 4]) == separator }) else {
            return .failure("no complete HTTP response head")
        }
        let head = String(decoding: response[..<headEnd], as: UTF8.self)
        let lines = head.split(separator: "\r\n", omittingEmptySubsequences: false)
        let status = lines.first.map { $0.split(separator: " ", maxSplits: 2) } ?? []
        guard status.count >= 2, status[0].hasPrefix("HTTP/1."), let code = Int(status[1]) else {
            return .failure("not an HTTP response")
        }
        guard code == 200 else { return .failure("HTTP \(code)") }
        var body = Array(response[(headEnd + 4)...])
        for line in lines.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let name = parts[0].trimmingWhitespace().lowercased()
            let value = parts[1].trimmingWhitespace()
            if name == "transfer-encoding", value.lowercased() != "identity" { return .failure("Transfer-Encoding \(value.prefix(40)) not supported") }
            if name == "content-length", let length = Int(value), length >= 0 {
                guard length <= body.count else { return .failure("body shorter than its Content-Length") }
                body = Array(body.prefix(length))
            }
        }
        let certificates = decodeCertificates(body)
        return certificates.isEmpty ? .failure("the body (\(body.count) bytes) is not a DER or PKCS#7 certificate") : .certificates(certificates)
    }

    /// One DER certificate, the certificates of a certs-only PKCS#7, or a PEM certificate: the
    /// three forms SecCAIssuerRequest.m accepts, in its order. Each as DER.
    static func decodeCertificates(_ body: [UInt8]) -> [[UInt8]] {
        defer { OpenSSLErrors.clear() }
        guard !body.isEmpty else { return [] }
        if let cert = try? X509Certificate(der: body) {
            return (try? cert.der).map { [$0] } ?? []
        }
        if let p7 = body.withUnsafeBufferPointer({ buffer -> UnsafeMutablePointer<PKCS7>? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PKCS7(nil, &cursor, buffer.count)
        }) {
            defer { PKCS7_free(p7) }
            guard let stack = CATSProbeShims_PKCS7_signed_certificates(p7) else { return [] }
            return (0..<min(CATSProbeShims_sk_X509_num(stack), 16)).compactMap { index in
                CATSProbeShims_sk_X509_value(stack, index).flatMap { CertificateReader.der($0, with: { i2d_X509($0, $1) }) }
            }
        }
        guard let bio = try? MemoryBIO(copying: body), let cert = X509Certificate.readPEM(from: bio) else { return [] }
        return (try? cert.der).map { [$0] } ?? []
    }

    /// The http(s) and other caIssuers URIs of `cert`, in order, at most `urlThreshold`.
    static func caIssuerURLs(of cert: OpaquePointer) -> [String] {
        guard let raw = X509_get_ext_d2i(cert, NID_info_access, nil, nil) else { return [] }
        let access = OpaquePointer(raw)
        defer { AUTHORITY_INFO_ACCESS_free(access) }
        var urls: [String] = []
        for index in 0..<min(CATSProbeShims_sk_ACCESS_DESCRIPTION_num(access), 64) {
            guard let description = CATSProbeShims_sk_ACCESS_DESCRIPTION_value(access, index),
                  OBJ_obj2nid(description.pointee.method) == NID_ad_ca_issuers,
                  let location = description.pointee.location, location.pointee.type == GEN_URI else { continue }
            urls.append(CertificateReader.asn1String(UnsafePointer(location.pointee.d.uniformResourceIdentifier)))
        }
        return urls
    }
}
