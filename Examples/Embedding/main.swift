// An embedding of atsprobe's engine (docs/embedding.md): nscurl's 16 ATS diagnostics for one
// URL, run on a probe runtime of its own, which is shut down at the end.
//
//     swift run EmbeddingExample https://example.com [extra-roots.pem]
import ATSEngine
import ATSPolicy
import ATSProbe
import TLSFacts
#if canImport(Glibc)
import Glibc
#endif

let arguments = Array(CommandLine.arguments.dropFirst())
guard let url = arguments.first, let target = try? Target(parsing: url) else {
    print("usage: EmbeddingExample URL [extra-roots.pem]")
    exit(64)
}

// The runtime: a reactor thread, the engine's threads, the resolver's, and a descriptor budget.
// Without one, a Prober uses ProbeRuntime.shared, which lives as long as the process.
let runtime = ProbeRuntime(configuration: ProbeRuntime.Configuration(threadNamePrefix: "example"))

// How trust is judged: Apple's root store as built in, plus any roots given.
let prober: Prober
do {
    prober = try Prober(options: ProbeOptions(caFile: arguments.dropFirst().first), runtime: runtime)
} catch {
    print("cannot set up the prober: \(error)")
    exit(64)
}

// The engine: nscurl's tests, each a real handshake (shared where two ask the same), judged
// under iOS's current rules.
let runner = DiagnosticsRunner(prober: prober, options: DiagnosticsOptions(timeout: 10))
let report = await runner.run(target)
for test in report.tests {
    print("\(test.verdict.passed ? "PASS" : "FAIL")  \(test.title)")
}
print("handshakes: \(report.handshakes)")

// Every thread the runtime started is gone when this returns.
try await runtime.shutdown()
exit(report.defaultPasses ? 0 : 1)
