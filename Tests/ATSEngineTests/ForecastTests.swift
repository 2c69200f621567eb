import Foundation
import Testing
import ATSEngine
import ATSPolicy
import ATSProbe
import ATSTestServers
import TLSFacts

/// `--forecast` end to end over loopback servers with chains made at test time: each change the
/// forecast names is checked against runs judged with `--at` (the prober's evaluation date) one
/// second before and at the instant, on the same server; the forecast makes no handshake.
@Suite("Forecast")
struct ForecastTests {
    static let day: TimeInterval = 86_400
    static let horizon = 90 * 86_400

    /// A run of `target` judged at `date` (nil: now), with or without a forecast.
    static func run(_ target: Target, caFile: String? = nil, systemAnchors: String? = nil, at date: Date? = nil,
                    forecast: Int? = horizon, distrust: AppleDistrustList = .apple) async throws -> (DiagnosticsReport, Prober) {
        let prober = try Prober(options: ProbeOptions(caFile: caFile, useSystemTrustStore: systemAnchors != nil, evaluationDate: date,
                                                      additionalSystemAnchorsFile: systemAnchors))
        var options = DiagnosticsOptions(ruleSet: .default, timeout: 10, forecastHorizonSeconds: forecast)
        options.distrust = distrust
        return (await DiagnosticsRunner(prober: prober, options: options).run(target), prober)
    }

    /// Whole seconds, as X.509 carries them.
    static func whole(_ date: Date) -> Date { Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down)) }

    /// Judges `target` with --at one second before and at each change, and checks the verdict and
    /// exception are the forecast's.
    static func checkExact(_ forecast: TargetForecast, target: Target, caFile: String) async throws {
        for change in forecast.changes {
            let (before, _) = try await run(target, caFile: caFile, at: change.at.addingTimeInterval(-1), forecast: nil)
            let (after, _) = try await run(target, caFile: caFile, at: change.at, forecast: nil)
            #expect(AuditVerdict(before) == change.before.verdict, "one second before \(change.at)")
            #expect(AuditVerdict(after) == change.after.verdict, "at \(change.at)")
            #expect(AuditVerdict(before) != AuditVerdict(after) || before.suggestion != after.suggestion)
        }
    }

    @Test func aLeafThatExpiresFirst() async throws {
        let pki = try TestPKI()
        let caFile = try pki.writeRootPEM()
        let notAfter = Self.whole(Date(timeIntervalSinceNow: 10 * Self.day))
        let server = try TestTLSServer.start(TLSServerConfiguration(identity: try pki.issue(CertificateSpec(notAfter: notAfter))))
        defer { server.stop() }
        let target = Target(host: "127.0.0.1", port: server.port)

        let (report, _) = try await Self.run(target, caFile: caFile)
        let forecast = try #require(report.forecast)
        #expect(forecast.now.verdict == .pass)
        #expect(forecast.changes.count == 1, "\(forecast.changes)")
        let change = try #require(forecast.changes.first)
        #expect(change.at == notAfter.addingTimeInterval(1))
        #expect(change.causes.map(\.kind) == [.leafExpires])
        #expect(change.before.verdict == .pass && change.after.verdict == .noException)
        #expect(forecast.renewal?.passes == true)
        try await Self.checkExact(forecast, target: target, caFile: caFile)
    }

    @Test func anIntermediateThatExpiresBeforeItsLeaf() async throws {
        let intermediateEnd = Self.whole(Date(timeIntervalSinceNow: 5 * Self.day))
        let pki = try TestPKI(withIntermediate: true, intermediateNotAfter: intermediateEnd)
        let caFile = try pki.writeRootPEM()
        let leafEnd = Self.whole(Date(timeIntervalSinceNow: 30 * Self.day))
        let server = try TestTLSServer.start(TLSServerConfiguration(identity: try pki.issue(CertificateSpec(notAfter: leafEnd))))
        defer { server.stop() }
        let target = Target(host: "127.0.0.1", port: server.port)

        let (report, _) = try await Self.run(target, caFile: caFile)
        let forecast = try #require(report.forecast)
        // The leaf's expiry changes nothing more: the chain already failed with the intermediate.
        #expect(forecast.changes.map(\.at) == [intermediateEnd.addingTimeInterval(1)], "\(forecast.changes)")
        #expect(forecast.changes.first?.causes.map(\.kind) == [.intermediateExpires])
        #expect(forecast.changes.first?.after.verdict == .noException)
        #expect(forecast.firstWorsening?.at == intermediateEnd.addingTimeInterval(1))
        try await Self.checkExact(forecast, target: target, caFile: caFile)
    }

    /// The anchor's notAfter: OpenSSL (and Apple, SecPolicyCheckTemporalValidity over the whole
    /// path) checks the anchor's validity too; the --at runs say whether the forecast agrees.
    @Test func anAnchorThatExpiresFirst() async throws {
        let rootEnd = Self.whole(Date(timeIntervalSinceNow: 7 * Self.day))
        let pki = try TestPKI(rootNotAfter: rootEnd)
        let caFile = try pki.writeRootPEM()
        let server = try TestTLSServer.start(TLSServerConfiguration(
            identity: try pki.issue(CertificateSpec(notAfter: Date(timeIntervalSinceNow: 30 * Self.day)))))
        defer { server.stop() }
        let target = Target(host: "127.0.0.1", port: server.port)
        let (report, _) = try await Self.run(target, caFile: caFile)
        let forecast = try #require(report.forecast)
        #expect(forecast.changes.map(\.at) == [rootEnd.addingTimeInterval(1)], "\(forecast.changes)")
        #expect(forecast.changes.first?.causes.map(\.kind) == [.anchorExpires])
        try await Self.checkExact(forecast, target: target, caFile: caFile)
    }

    /// Issue 41: a renewal from the same CA is judged with the issuing CA's and the anchor's
    /// validity through the horizon, at the forecast's own instants. A root ending in 40 days, and
    /// an intermediate ending in 20 under it: a renewal passes today and fails from the instant
    /// the forecast names for the CA's expiry (it read "passes" before).
    @Test func aRenewalFailsFromTheIssuingCAsOrTheAnchorsExpiry() async throws {
        let rootEnd = Self.whole(Date(timeIntervalSinceNow: 40 * Self.day))
        let intermediateEnd = Self.whole(Date(timeIntervalSinceNow: 20 * Self.day))
        let cases: [(TestPKI, Date, ForecastCause.Kind)] = [
            (try TestPKI(rootNotAfter: rootEnd), rootEnd, .anchorExpires),
            (try TestPKI(withIntermediate: true, intermediateNotAfter: intermediateEnd, rootNotAfter: rootEnd), intermediateEnd, .intermediateExpires),
        ]
        for (pki, end, kind) in cases {
            let caFile = try pki.writeRootPEM()
            let server = try TestTLSServer.start(TLSServerConfiguration(
                identity: try pki.issue(CertificateSpec(notAfter: Date(timeIntervalSinceNow: 60 * Self.day)))))
            defer { server.stop() }
            let (report, _) = try await Self.run(Target(host: "127.0.0.1", port: server.port), caFile: caFile)
            let forecast = try #require(report.forecast)
            let worse = try #require(forecast.firstWorsening)
            #expect(worse.at == end.addingTimeInterval(1) && worse.causes.map(\.kind) == [kind], "\(forecast.changes)")
            let renewal = try #require(forecast.renewal)
            #expect(renewal.passes, "\(renewal.violations)")
            #expect(renewal.failsFrom == worse.at, "\(kind): \(renewal)")
            #expect(renewal.failsFromViolations.map(\.rule) == [.caValidity], "\(renewal.failsFromViolations)")
            #expect(renewal.advice.contains { $0.hasPrefix("renewal from this CA will fail on Apple devices:") }, "\(renewal.advice)")
        }
    }

    @Test func aTargetWithNoChangeWithinTheHorizon() async throws {
        let pki = try TestPKI()
        let caFile = try pki.writeRootPEM()
        let server = try TestTLSServer.start(TLSServerConfiguration(
            identity: try pki.issue(CertificateSpec(notAfter: Date(timeIntervalSinceNow: 200 * Self.day)))))
        defer { server.stop() }
        let (report, _) = try await Self.run(Target(host: "127.0.0.1", port: server.port), caFile: caFile)
        let forecast = try #require(report.forecast)
        #expect(forecast.changes.isEmpty)
        #expect(forecast.now.verdict == .pass)
        #expect(forecast.horizonSeconds == Self.horizon)
    }

    /// Issued 2019-06-01, before Apple's 825-day rule, and valid for years: trusted today, but the
    /// same lifetime issued today breaks the rule.
    @Test func aLeafWhoseRenewalUnderTodaysLifetimeRuleFails() async throws {
        let pki = try TestPKI()
        let caFile = try pki.writeRootPEM()
        let spec = CertificateSpec(notBefore: Date(timeIntervalSince1970: 1_559_347_200), notAfter: Date(timeIntervalSinceNow: 400 * Self.day))
        let server = try TestTLSServer.start(TLSServerConfiguration(identity: try pki.issue(spec)))
        defer { server.stop() }
        let (report, _) = try await Self.run(Target(host: "127.0.0.1", port: server.port), caFile: caFile)
        let forecast = try #require(report.forecast)
        #expect(forecast.now.verdict == .pass)
        let renewal = try #require(forecast.renewal)
        #expect(!renewal.passes)
        #expect(renewal.violations.map(\.rule) == [.validity825], "\(renewal.violations)")
        #expect(renewal.advice.contains { $0.contains("at most 825 days") }, "\(renewal.advice)")
    }

    /// A root Apple distrusts for certificates issued from a date: today's leaf (issued before) is
    /// judged as before, a renewal fails from that date on ("change CA").
    @Test func anAnchorWithADistrustAfterDate() async throws {
        let pki = try TestPKI()
        let anchors = try pki.writeRootPEM()
        let server = try TestTLSServer.start(TLSServerConfiguration(identity: try pki.issue(CertificateSpec())))
        defer { server.stop() }
        let target = Target(host: "127.0.0.1", port: server.port)
        let (plain, _) = try await Self.run(target, systemAnchors: anchors)
        let rootFingerprint = try #require(plain.bestObservation?.trust.path?.last?.sha256Fingerprint)
        #expect(plain.bestObservation?.trust.anchor == .system)

        let from = Self.whole(Date(timeIntervalSinceNow: 20 * Self.day))
        let distrust = AppleDistrustList.apple.adding(DateDistrustedRoot(sha256: rootFingerprint, name: "atsprobe Test Root",
                                                                        authority: "atsprobe", distrustedFrom: from, source: "test"))
        let (report, _) = try await Self.run(target, systemAnchors: anchors, distrust: distrust)
        let forecast = try #require(report.forecast)
        let renewal = try #require(forecast.renewal)
        #expect(!renewal.violations.contains { $0.rule == .distrustedRoot })
        #expect(renewal.failsFrom == from)
        #expect(renewal.failsFromViolations.map(\.rule) == [.distrustedRoot])
        #expect(renewal.advice.contains("renewal from this CA will fail on Apple devices: change CA"))
        // Today's leaf was issued before the date: its verdict is the same as without the distrust.
        #expect(AuditVerdict(report) == AuditVerdict(plain))
        #expect(forecast.changes.map(\.at) == plain.forecast?.changes.map(\.at))

        // Already distrusted: a renewal fails today.
        let past = AppleDistrustList.apple.adding(DateDistrustedRoot(sha256: rootFingerprint, name: "atsprobe Test Root",
                                                                    authority: "atsprobe", distrustedFrom: Date(timeIntervalSinceNow: -3600), source: "test"))
        let (distrusted, _) = try await Self.run(target, systemAnchors: anchors, distrust: past)
        #expect(distrusted.forecast?.renewal?.violations.contains { $0.rule == .distrustedRoot } == true)
    }

    /// The forecast is computed from the recorded handshakes: the same run with and without it
    /// makes the same handshakes.
    @Test func theForecastAddsNoHandshake() async throws {
        let pki = try TestPKI(withIntermediate: true, intermediateNotAfter: Date(timeIntervalSinceNow: 5 * Self.day))
        let caFile = try pki.writeRootPEM()
        let server = try TestTLSServer.start(TLSServerConfiguration(
            identity: try pki.issue(CertificateSpec(notAfter: Date(timeIntervalSinceNow: 10 * Self.day)))))
        defer { server.stop() }
        let target = Target(host: "127.0.0.1", port: server.port)
        let (without, plainProber) = try await Self.run(target, caFile: caFile, forecast: nil)
        let servedWithout = server.completedHandshakes
        let (with, forecastProber) = try await Self.run(target, caFile: caFile)
        let servedWith = server.completedHandshakes - servedWithout
        #expect(without.forecast == nil)
        #expect(with.forecast?.changes.isEmpty == false)
        #expect(with.handshakes == without.handshakes)
        #expect(forecastProber.handshakesMade == plainProber.handshakesMade)
        #expect(forecastProber.trustEvaluationsMade == plainProber.trustEvaluationsMade)
        #expect(servedWith == servedWithout, "the server completed \(servedWith) handshakes with the forecast, \(servedWithout) without")
    }
}
