#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
internal import COpenSSL
internal import CATSProbeShims
internal import OpenSSLSupport
import TLSFacts
import ATSTrust

/// One probe from start to end, as one async function over non-blocking sockets: resolve,
/// connect, handshake, observe, judge trust, and GET when asked. Every wait is an await on the
/// reactor that ends by the deadline, or at once when the task is cancelled; between waits it
/// runs on its runtime's engine threads (`EngineExecutor`) and never blocks.
struct Handshake {
    let request: ProbeRequest
    let contexts: ClientContextCache
    /// Counts connection attempts (Prober.handshakesMade).
    let attempts: Counter
    let clock: Stopwatch
    let deadline: Deadline
    var verifier: SCTVerifier { chainTrust.verifier }
    /// Missing intermediates by caIssuers URL, shared by every probe of the run; nil with --no-aia.
    let fetcher: IssuerFetcher?
    /// Whether a caIssuers fetch may reach non-global addresses whatever the target (--allow-private-fetch).
    let allowPrivateFetch: Bool
    /// The run's trust judgement (store, anchors, date, SCT keys, one evaluation per distinct chain).
    let chainTrust: ChainTrust
    /// Where names are looked up (the Prober's).
    let resolver: Resolver
    /// Served certificates' facts, read once per distinct certificate in the run (the Prober's).
    let certificates: CertificateFactsCache
    /// `ProbeOptions.connectionAdmission`: which hosts and addresses this handshake may connect to.
    let admission: ConnectionAdmission?
    /// Where a speculative handshake waits with the server's first answer unread (`Prober.probe(_:holding:)`).
    var hold: ServerHelloHold? = nil

    /// Certificates read from a served chain. OpenSSL already refuses a certificate message
    /// over 100 KiB (SSL_R_EXCESSIVE_MESSAGE_SIZE, a protocolViolation), which holds a few
    /// hundred small certificates at most; this bound is far above any real chain, so the
    /// chain shown and judged is the chain as served. (It was 16: a 51-certificate chain was
    /// cut, its anchor lost, and judged "untrusted root".)
    static let chainLimit = TrustEvaluator.chainLimit

    /// The probe. Only the waits are here: each step between them is a synchronous, non-inlined
    /// method, so that this async frame, alive for the whole probe (10 per target in flight),
    /// holds only what crosses an await (with the steps inlined it was 5,808 bytes).
    func run() async -> ProbeResult {
        let context: ClientContext
        do {
            context = try contexts.context(for: request.offer)
        } catch {
            return .failure(error)
        }
        let target = request.target
        attempts.increment()
        let connectClock = Stopwatch()
        let connection: TCPConnection
        do {
            connection = try await TCPConnection.connect(host: target.connectAddress ?? target.host, port: target.connectPort ?? target.port,
                                                         deadline: deadline, resolver: resolver, admission: admission.map { (target.host, $0) })
        } catch {
            return failed(error)
        }
        let connectMilliseconds = connectClock.milliseconds

        let session: TLSSession
        do {
            session = try startSession(context: context, connection: connection)
        } catch {
            return .failure(error)
        }
        let handshakeClock = Stopwatch()
        let waiting = hold.map { hold in { @Sendable [clock, deadline] in await Handshake.held(by: hold, clock: clock, deadline: deadline) } }
        if case .failed(let code, let errors) = await session.drive(deadline: deadline, holding: waiting, { $0.connect() }) {
            return handshakeFailed(session: session, code: code, errors: errors)
        }
        // The time it was held is not the server's.
        let handshakeMilliseconds = handshakeClock.milliseconds - (hold?.heldSeconds ?? 0) * 1000

        let observation = await observe(session: session, connectMilliseconds: connectMilliseconds,
                                        handshakeMilliseconds: handshakeMilliseconds)
        guard request.httpRequest else { return .success(observation) }
        let http = observation.alpn == "h2"
            ? await exchangeHTTP2(session: session, deadline: deadline)
            : await exchangeHTTP(session: session, deadline: deadline)
        return Handshake.success(observation, http: http)
    }

    /// Waits at `hold`, at most its `holdLimit` (outside any runtime: not at all).
    private static func held(by hold: ServerHelloHold, clock: Stopwatch, deadline: Deadline) async {
        guard let reactor = ProbeRuntime.current?.reactor else { return }
        let limit = hold.holdLimit(elapsed: clock.milliseconds / 1000, left: deadline.end - Deadline.now())
        await hold.wait(on: reactor, until: Deadline(secondsFromNow: limit))
    }

    @inline(never)
    private func failed(_ error: ProbeFailure) -> ProbeResult {
        var failure = error
        failure.elapsedMilliseconds = clock.milliseconds
        return .failure(failure)
    }

    /// The session over `connection`, with SNI and (for the GET's handshake) the status request set.
    @inline(never)
    private func startSession(context: ClientContext, connection: TCPConnection) throws(ProbeFailure) -> TLSSession {
        let session = try TLSSession(context: context, offer: request.offer, connection: connection)
        if let name = request.serverName, !Target.isIPAddress(name) {
            session.ssl.setHostName(name)
        }
        if request.requestStatus {
            // Asks for SCTs (and, as OpenSSL does with it, an OCSP staple); permissive: never fails.
            session.ssl.requestCertificateStatus()
        }
        OpenSSLErrors.clear()
        return session
    }

    @inline(never)
    private func handshakeFailed(session: TLSSession, code: Int32, errors: [OpenSSLErrorEntry]) -> ProbeResult {
        .failure(FailureClassifier.classify(session: session, code: code, errors: errors, elapsed: clock.milliseconds))
    }

    @inline(never)
    private static func success(_ observation: Observation, http: HTTPExchange) -> ProbeResult {
        var observation = observation
        observation.http = http
        return .success(observation)
    }

    private func observe(session: TLSSession, connectMilliseconds: Double, handshakeMilliseconds: Double) async -> Observation {
        // Each served certificate is read once, here; trust evaluation takes the same objects and facts.
        let served = session.ssl.peerCertificateChain(limit: Handshake.chainLimit)
        // Trust first: it may fetch the leaf's missing issuer, which the SCT check needs. The
        // fetch policy follows the address this probe reached (a loopback or private target may
        // fetch from its own kind of network; docs/trust.md).
        let policy = IssuerFetchAddressPolicy(targetAddress: session.connection.peerAddress, allowPrivateFetch: allowPrivateFetch)
        let fetcher = self.fetcher
        let (chain, trustEvaluation) = await chainTrust.judge(
            served: served.map(certificates.served), name: request.serverName ?? request.target.host,
            source: fetcher.map { IssuerFetcher.Source(fetcher: $0, policy: policy, deadline: deadline) }, policy: policy,
            fetchedIssuer: { fetcher?.fetchedIssuer(of: $0) })
        return observation(session: session, served: served, chain: chain, trust: trustEvaluation,
                           connectMilliseconds: connectMilliseconds, handshakeMilliseconds: handshakeMilliseconds)
    }

    /// What the handshake negotiated and was served, once its chain is judged.
    @inline(never)
    private func observation(session: TLSSession, served: [X509Certificate], chain: [ServedCertificate], trust: TrustEvaluation,
                             connectMilliseconds: Double, handshakeMilliseconds: Double) -> Observation {
        let cipher = session.ssl.currentCipher
        let suite = CipherSuite(rawValue: cipher.map { SSL_CIPHER_get_protocol_id($0) } ?? 0)
        let cipherName = cipher.map { String(cString: SSL_CIPHER_get_name($0)) } ?? ""
        let alpn = session.ssl.selectedALPN
        let verifier = self.verifier

        return Observation(
            peerAddress: session.connection.peerAddress,
            port: request.target.connectPort ?? request.target.port,
            serverName: request.serverName,
            protocolVersion: TLSVersion(rawValue: UInt16(truncatingIfNeeded: session.ssl.version)),
            cipherSuite: suite,
            openSSLCipherName: cipherName,
            keyExchangeGroup: keyExchangeGroup(ssl: session.ssl, cipher: cipher),
            chain: chain.map(\.facts),
            alpn: alpn,
            connectMilliseconds: connectMilliseconds,
            handshakeMilliseconds: handshakeMilliseconds,
            trust: trust,
            deliveredSCTs: request.requestStatus ? StatusReader.deliveredSCTs(of: session.ssl) { sct in
                served.first.map { verifier.check(sct, entry: .certificate(leaf: $0)) } ?? .noIssuer
            } : [],
            ocspStaple: StatusReader.ocspStaple(of: session.ssl, leaf: served.first, issuer: served.count > 1 ? served[1] : nil),
            serverSignatureScheme: serverSignatureScheme(ssl: session.ssl, leaf: served.first))
    }

    /// The scheme of the server's handshake signature, from OpenSSL's signature type and hash.
    private func serverSignatureScheme(ssl: borrowing SSLObject, leaf: X509Certificate?) -> SignatureScheme? {
        guard let (type, hash) = ssl.peerSignature else { return nil }
        let hashIndex: [Int32: Int] = [NID_sha1: 0, NID_sha224: 1, NID_sha256: 2, NID_sha384: 3, NID_sha512: 4]
        switch type {
        case EVP_PKEY_ED25519: return .ed25519
        case EVP_PKEY_ED448: return .ed448
        case EVP_PKEY_RSA:
            guard let index = hashIndex[hash] else { return nil }
            return [.rsaPKCS1SHA1, .rsaPKCS1SHA224, .rsaPKCS1SHA256, .rsaPKCS1SHA384, .rsaPKCS1SHA512][index]
        case EVP_PKEY_EC:
            guard let index = hashIndex[hash] else { return nil }
            return [.ecdsaSHA1, .ecdsaSHA224, .ecdsaSecp256r1SHA256, .ecdsaSecp384r1SHA384, .ecdsaSecp521r1SHA512][index]
        case EVP_PKEY_RSA_PSS:
            // rsa_pss_pss_* when the leaf key itself is an RSA-PSS key, rsa_pss_rsae_* otherwise.
            let pssKey = leaf?.publicKeyInfo.map { $0.baseID == EVP_PKEY_RSA_PSS } ?? false
            switch hash {
            case NID_sha256: return pssKey ? .rsaPSSPSSSHA256 : .rsaPSSRSAESHA256
            case NID_sha384: return pssKey ? .rsaPSSPSSSHA384 : .rsaPSSRSAESHA384
            case NID_sha512: return pssKey ? .rsaPSSPSSSHA512 : .rsaPSSRSAESHA512
            default: return nil
            }
        default: return nil
        }
    }

    /// "X25519", "secp256r1", "ffdhe2048"; "DH 2048" for TLS 1.2 DHE; nil for static RSA.
    private func keyExchangeGroup(ssl: borrowing SSLObject, cipher: OpaquePointer?) -> String? {
        if let cipher, SSL_CIPHER_get_kx_nid(cipher) == NID_kx_rsa { return nil }
        let group = ssl.negotiatedGroup
        if group != 0 && group != NID_undef {
            if let text = ssl.groupName(group) {
                return ["x25519": "X25519", "x448": "X448"][text] ?? text
            }
            if let name = OBJ_nid2sn(group) { return String(cString: name) }
        }
        guard let peerKey = ssl.peerTemporaryKey else { return nil }
        if peerKey.baseID == EVP_PKEY_DH { return "DH \(peerKey.bits)" }
        return OBJ_nid2sn(peerKey.baseID).map { String(cString: $0) }
    }

    /// Sends the GET and reads the response head, bounded in size and by the deadline.
    private func exchangeHTTP(session: TLSSession, deadline: Deadline) async -> HTTPExchange {
        let request = Array(HTTPHead.request(for: self.request.target).utf8)
        let written = await session.drive(deadline: deadline) { ssl in
            request.withUnsafeBytes { ssl.write($0) }
        }
        if case .failed(_, let errors) = written {
            return HTTPExchange(statusCode: nil, failure: "request not sent: \(failureText(session, errors))")
        }
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while head.count < HTTPHead.headLimit {
            let read = await session.drive(deadline: deadline) { ssl in
                buffer.withUnsafeMutableBytes { ssl.read(into: $0) }
            }
            switch read {
            case .done(let n):
                head += buffer.prefix(Int(n))
                if let end = HTTPHead.endOfHead(head) { return HTTPHead.parse(Array(head.prefix(end)), complete: true) }
            case .failed(let code, let errors):
                if head.isEmpty {
                    let reason = code == SSL_ERROR_ZERO_RETURN || session.peerClosed ? "connection closed" : failureText(session, errors)
                    return HTTPExchange(statusCode: nil, failure: "no response: \(reason)")
                }
                // A head trickled past the deadline is a timeout, whatever its first bytes say:
                // parsing "HTT" would report a malformed status line the server never sent.
                if session.timedOut {
                    return HTTPExchange(statusCode: nil, failure: "timed out: response head incomplete after \(head.count) bytes")
                }
                return HTTPHead.parse(head, complete: false)
            }
        }
        return HTTPHead.parse(Array(head.prefix(HTTPHead.headLimit)), complete: false)
    }

    /// The GET over HTTP/2, when the server selected h2.
    private func exchangeHTTP2(session: TLSSession, deadline: Deadline) async -> HTTPExchange {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        let exchange = HTTP2Exchange(write: { bytes in
            let written = await session.drive(deadline: deadline) { ssl in
                bytes.withUnsafeBytes { ssl.write($0) }
            }
            if case .failed(_, let errors) = written { return failureText(session, errors) }
            return nil
        }, read: {
            switch await session.drive(deadline: deadline, { ssl in
                buffer.withUnsafeMutableBytes { ssl.read(into: $0) }
            }) {
            case .done(let n): return .success(Array(buffer.prefix(Int(n))))
            case .failed(let code, let errors):
                if code == SSL_ERROR_ZERO_RETURN || session.peerClosed { return .success([]) }
                return .failure(HTTP2Exchange.ReadFailure(text: failureText(session, errors)))
            }
        })
        return await exchange.run(target: request.target)
    }

    private func failureText(_ session: TLSSession, _ errors: [OpenSSLErrorEntry]) -> String {
        if session.timedOut { return "timed out" }
        let text = FailureClassifier.describe(session: session, errors: errors)
        return text.isEmpty ? "connection failed" : text
    }
}
