// An embedding of atsprobe's engine (docs/embedding.md): nscurl's 16 ATS diagnostics for one
// URL, run on a probe runtime of its own, which is shut down at the end.
//
//     swift run EmbeddingExample https://example.com [--trust-store system] [--ca-file roots.pem] [--ct-log-list log_list.json]
import ATSEngine
import ATSPolicy
import ATSProbe
import ATSTrust
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts
#if canImport(Glibc)
import Glibc
#endif

var arguments = Array(CommandLine.arguments.dropFirst())
/// The value after `option`, removed from the arguments; nil when absent.
@MainActor func value(of option: String) -> String? {
    guard let index = arguments.firstIndex(of: option), index + 1 < arguments.count else { return nil }
    defer { arguments.removeSubrange(index...(index + 1)) }
    return arguments[index + 1]
}
let trustStore = value(of: "--trust-store").flatMap(TrustStoreChoice.init(rawValue:)) ?? .apple
let caFile = value(of: "--ca-file"), logListFile = value(of: "--ct-log-list")
guard arguments.count == 1, let url = arguments.first, let target = try? Target(parsing: url) else {
    print("usage: EmbeddingExample URL [--trust-store apple|system] [--ca-file roots.pem] [--ct-log-list log_list.json]")
    exit(64)
}

// The runtime: the engine's threads (one of them waiting in epoll), the resolver, and a descriptor budget.
// It cannot start when this machine has no descriptor or thread to give (`ulimit -n`, `-v`).
let runtime: ProbeRuntime
do {
    runtime = try ProbeRuntime(configuration: ProbeRuntime.Configuration(threadNamePrefix: "example"))
} catch {
    print("\(error)")
    exit(70)
}

// How the run judges, in one value: iOS's current rules, now, Apple's root store (or this
// machine's) plus any roots given, and Apple's CT log list unless another is given. The same
// list checks the SCTs' signatures and judges Apple's CT policy.
let context: RunContext
do {
    var trust = RunContext.Trust(anchors: AnchorConfiguration(caFile: caFile, trustStore: trustStore))
    if let logListFile {
        let json = try Data(contentsOf: URL(fileURLWithPath: logListFile))
        trust.ctLogs = try CTLogList(appleLogListJSON: json, source: logListFile).checkingKeys(file: logListFile)
    }
    context = try RunContext(ruleSet: .current, trust: trust, timeout: 10, runtime: runtime)
} catch {
    print("cannot set up the run: \(error)")
    exit(64)
}

// The run, the one way in: it reads the anchors once and owns the prober and nscurl's runner
// (each test a real handshake, shared where two ask the same).
let run: Run
do {
    run = try Run(context: context)
} catch {
    print("cannot set up the run: \(error)")
    exit(64)
}
let report = await run.runner.run(target)
for test in report.tests {
    print("\(test.verdict.passed ? "PASS" : "FAIL")  \(test.title)")
}
print("handshakes: \(report.handshakes)")

// Every thread the runtime started is gone when this returns.
try await runtime.shutdown()
exit(report.defaultPasses ? 0 : 1)
