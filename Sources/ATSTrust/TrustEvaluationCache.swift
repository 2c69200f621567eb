#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization
import TLSFacts

/// Each served chain is evaluated once per run (issue 22): nscurl's 16 tests make about ten
/// handshakes to one server, and every one is served the same chain for the same name. The
/// evaluation depends only on the chain (its certificates' DER, by SHA-256), the name matched,
/// the anchors, the time judged at and how missing issuers may be fetched, so those are the key;
/// the first asker evaluates and every later asker, even one asking while it runs, awaits the
/// same task (suspended, holding no thread or lock).
package final class TrustEvaluationCache: Sendable {
    package struct Key: Hashable, Sendable {
        /// SHA-256 of each certificate's DER, in the order given (leaf first).
        package var chain: [String]
        package var name: String?
        package var anchors: AnchorConfiguration
        package var date: Date
        /// nil: missing issuers are not fetched (--no-aia).
        package var fetching: IssuerFetchAddressPolicy?

        package init(chain: [String], name: String?, anchors: AnchorConfiguration, date: Date, fetching: IssuerFetchAddressPolicy?) {
            self.chain = chain
            self.name = name
            self.anchors = anchors
            self.date = date
            self.fetching = fetching
        }
    }

    /// Distinct evaluations remembered per run; past this, chains are evaluated without being
    /// remembered (an audit of many servers cannot grow memory without bound).
    package static let limit = 10_000

    private let entries = Mutex<[Key: Task<TrustEvaluation, Never>]>([:])
    private let counter = Atomic<Int>(0)
    /// Where evaluations run: the probe engine's own threads in a Prober (the shared pool may be
    /// busy elsewhere, and an evaluation waiting for a thread eats the probe's deadline).
    private let executor: (any TaskExecutor)?

    package init(executor: (any TaskExecutor)? = nil) {
        self.executor = executor
    }

    /// Evaluations run so far (cache hits not counted): the tests' proof of "once per run".
    package var evaluationsMade: Int { counter.load(ordering: .relaxed) }

    package func evaluation(for key: Key, _ evaluate: @escaping @Sendable () async -> TrustEvaluation) async -> TrustEvaluation {
        let task: Task<TrustEvaluation, Never> = entries.withLock { entries in
            if let task = entries[key] { return task }
            counter.add(1, ordering: .relaxed)
            let task = Task(executorPreference: executor) { await evaluate() }
            if entries.count < TrustEvaluationCache.limit { entries[key] = task }
            return task
        }
        return await task.value
    }
}
