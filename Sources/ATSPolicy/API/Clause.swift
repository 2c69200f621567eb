import TLSFacts

/// One clause of a reason or of advice: what it says, as a value, and its words for people.
/// Advice leaves out a clause its facts already say by comparing what the clauses say
/// (`subject`), never their words (issue 39, item 7: no substring search of the sentences).
public struct Clause: Sendable, Hashable, CustomStringConvertible {
    public enum Subject: Sendable, Hashable {
        /// The best protocol the server completed.
        case serverHighestProtocol(TLSVersion)
        /// The suites the server chose.
        case serverChose([CipherSuite])
        /// Anything else: said already only when said in the same words.
        case other
    }

    public var subject: Subject
    /// The clause for people, rendered once.
    public var text: String

    public init(_ subject: Subject, _ text: String) {
        self.subject = subject
        self.text = text
    }

    /// A clause that says nothing advice compares.
    public init(_ text: String) { self.init(.other, text) }

    public var description: String { text }

    /// Whether `facts` already say this clause: the same protocol, every suite it names (a clause
    /// naming suites says nothing more once each is said), or, for any other clause, the same one.
    public func isSaid(by facts: [Clause]) -> Bool {
        switch subject {
        case .serverHighestProtocol:
            return facts.contains { $0.subject == subject }
        case .serverChose(let suites):
            let said = Set(facts.flatMap { fact -> [CipherSuite] in
                if case .serverChose(let named) = fact.subject { return named }
                return []
            })
            return !suites.isEmpty && suites.allSatisfy(said.contains)
        case .other:
            return facts.contains(self)
        }
    }
}

extension [Clause] {
    /// The clauses `facts` do not already say, in order.
    public func notSaid(by facts: [Clause]) -> [Clause] { filter { !$0.isSaid(by: facts) } }

    /// The clauses as one line.
    public var line: String { map(\.text).joined(separator: "; ") }
}
