import Foundation
import Testing

/// The JSON contract is a library of its own (ATSContract) that a reader of atsprobe's JSON can
/// depend on without OpenSSL, c-ares or epoll: its transitive dependencies, read from
/// Package.swift's target graph (ModuleGraphTests' parser), are listed here and checked. So are
/// the renderers' (ATSReport) and what `atsprobe report FILE` runs through (the modules
/// ReportCommand.swift imports), issue 39 item 5.
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

    /// What neither the contract nor the renderers may reach: OpenSSL, c-ares, epoll, and the
    /// libraries over them.
    static let linksSockets = ["COpenSSL", "CATSProbeShims", "OpenSSLSupport", "CAres", "CEpoll", "ATSProbe", "ATSTrust", "ATSEngine",
                               "ATSCommandOutputs", "ATSServe", "ATSApp", "CZlib"]

    @Test func theRenderersLinkNoOpenSSLCAresOrEpoll() throws {
        let graph = try ModuleGraphTests.declaredGraph()
        let dependencies = Self.closure(of: "ATSReport", in: graph)
        // The contract and its pure dependencies, the command line's files, and the plist positions
        // (libxml2's headers only: PropertyListPositions opens libxml2 with dlopen).
        #expect(dependencies == ["ATSAdvice", "ATSContract", "ATSFiles", "ATSPolicy", "CLibXML2", "PropertyList", "PropertyListPositions",
                                 "TextSupport", "TLSFacts"],
                "ATSReport depends on \(dependencies.sorted())")
        for forbidden in Self.linksSockets { #expect(!dependencies.contains(forbidden), "ATSReport reaches \(forbidden)") }
        #expect(!Self.closure(of: "ATSFiles", in: graph).contains("ATSProbe"), "ATSFiles reaches ATSProbe")
    }

    /// Every command's renderers (ATSCommandOutputs: nscurl's text, the suggested and merged
    /// plist, `--rules all`'s grid, the audit's sink, probe, pins, cert, plist check and app) read
    /// documents the engine made (issue 39 item 5), so the library links no OpenSSL, c-ares or
    /// epoll: the compiler, not a scan of imports, keeps an engine value out of them. Its one
    /// library beyond ATSReport's is ATSApp (over zlib), whose inventory `app`'s document holds.
    @Test func theCommandRenderersLinkNoOpenSSLCAresOrEpoll() throws {
        let graph = try ModuleGraphTests.declaredGraph()
        let dependencies = Self.closure(of: "ATSCommandOutputs", in: graph)
        #expect(dependencies == Self.closure(of: "ATSReport", in: graph).union(["ATSReport", "ATSApp", "CZlib"]),
                "ATSCommandOutputs depends on \(dependencies.sorted())")
        for forbidden in Self.linksSockets where !["ATSCommandOutputs", "ATSApp", "CZlib"].contains(forbidden) {
            #expect(!dependencies.contains(forbidden), "ATSCommandOutputs reaches \(forbidden)")
        }
    }

    /// `atsprobe report FILE`'s path: every package module ReportCommand.swift imports, with all it
    /// depends on, reaches no OpenSSL, c-ares or epoll (the executable links them for the other
    /// commands; report's code calls none of them).
    @Test func reportsPathLinksNoOpenSSLCAresOrEpoll() throws {
        let graph = try ModuleGraphTests.declaredGraph()
        let source = try ModuleGraphTests.read("Sources/atsprobe/Commands/ReportCommand.swift")
        let imports = source.split(separator: "\n").compactMap { line -> String? in
            guard let match = line.firstMatch(of: /^(?:@_exported )?import (\w+)$/) else { return nil }
            return String(match.1)
        }
        let modules = imports.filter { graph[$0] != nil }
        #expect(modules.contains("ATSReport"), "ReportCommand.swift imports \(imports)")
        var reached = Set(modules)
        for module in modules { reached.formUnion(Self.closure(of: module, in: graph)) }
        for forbidden in Self.linksSockets {
            #expect(!reached.contains(forbidden), "report's path (\(modules.sorted())) reaches \(forbidden)")
        }
        // Whatever else it imports is Foundation, the argument parser and the standard library.
        #expect(Set(imports).subtracting(modules).isSubset(of: ["ArgumentParser", "Foundation", "FoundationEssentials", "Glibc"]),
                "ReportCommand.swift imports \(imports)")
    }
}
