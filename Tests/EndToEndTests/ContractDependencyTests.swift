import Foundation
import Testing

/// The JSON contract is a library of its own (ATSContract) that a reader of atsprobe's JSON can
/// depend on without OpenSSL, c-ares or epoll: its transitive dependencies, read from
/// Package.swift's target graph (ModuleGraphTests' parser), are listed here and checked.
@Suite struct ContractDependencyTests {
    /// Every target `name` depends on, directly or not.
    static func closure(of name: String, in graph: [String: Set<String>]) -> Set<String> {
        var seen: Set<String> = []
        var queue = Array(graph[name] ?? [])
        while let next = queue.popLast() {
            guard seen.insert(next).inserted else { continue }
            queue += graph[next] ?? []
        }
        return seen
    }

    @Test func theContractLinksNoOpenSSLCAresOrEpoll() throws {
        let graph = try ModuleGraphTests.declaredGraph()
        try #require(graph["ATSContract"] != nil, "Package.swift declares no ATSContract target")
        let dependencies = Self.closure(of: "ATSContract", in: graph)
        // The list, as a failure would show it: ATSAdvice, ATSPolicy, PropertyList, TextSupport, TLSFacts.
        #expect(dependencies == ["ATSAdvice", "ATSPolicy", "PropertyList", "TextSupport", "TLSFacts"],
                "ATSContract depends on \(dependencies.sorted())")
        for forbidden in ["COpenSSL", "CATSProbeShims", "OpenSSLSupport", "CAres", "CEpoll", "ATSProbe", "ATSTrust", "ATSEngine",
                          "ATSReport", "ATSFiles", "CZlib", "CLibXML2"] {
            #expect(!dependencies.contains(forbidden), "ATSContract reaches \(forbidden)")
        }
        // The renderers and the engine sit above it.
        #expect(Self.closure(of: "ATSReport", in: graph).contains("ATSContract"))
        #expect(!Self.closure(of: "ATSContract", in: graph).contains("ATSContract"))
    }
}
