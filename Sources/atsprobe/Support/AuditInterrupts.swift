import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// SIGINT and SIGTERM during an audit: handled on a dispatch queue (not in a signal handler,
/// where almost nothing is safe), then passed to the output actor, which ends the run between
/// two records with the documented exit code (130, 143; docs/exit-codes.md).
final class AuditInterrupts: @unchecked Sendable {
    private var sources: [DispatchSourceSignal] = []

    init(sink: AuditOutput) {
        for (number, name, status) in [(SIGINT, "SIGINT", ExitStatus.interrupted), (SIGTERM, "SIGTERM", .terminated)] {
            signal(number, SIG_IGN)  // the dispatch source sees it; the default action would not let it
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { Task { await sink.interrupt(signalName: name, status: status) } }
            source.resume()
            sources.append(source)
        }
    }

    func cancel() {
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
