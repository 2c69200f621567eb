// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "atsprobe",
    // No `platforms:`: only Linux builds and passes (the reactor is epoll's; docs/design.md,
    // "Platforms", says what a kqueue backend would take).
    // The products are the API a Swift user may depend on (docs/embedding.md); every other target
    // (C modules, OpenSSLSupport, test support and fixtures, the example) is not.
    products: [
        .executable(name: "atsprobe", targets: ["atsprobe"]),
        .library(name: "ATSEngine", targets: ["ATSEngine"]),
        .library(name: "ATSProbe", targets: ["ATSProbe"]),
        .library(name: "ATSPolicy", targets: ["ATSPolicy"]),
        .library(name: "ATSAdvice", targets: ["ATSAdvice"]),
        .library(name: "ATSTrust", targets: ["ATSTrust"]),
        .library(name: "ATSApp", targets: ["ATSApp"]),
        .library(name: "ATSReport", targets: ["ATSReport"]),
        .library(name: "ATSContract", targets: ["ATSContract"]),
        .library(name: "TLSFacts", targets: ["TLSFacts"]),
        .library(name: "PropertyList", targets: ["PropertyList"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // HPACK (RFC 7541) for the HTTP/2 request when a server selects h2: a well-kept codec
        // rather than one of our own. Only the NIOHPACK product is used.
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.82.0"),
        // Deque (the engine's job queues) and Heap (the reactor's deadlines), in place of our own.
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        // `atsprobe serve` (docs/serve.md): the HTTP server on SwiftNIO, without its default traits
        // (swift-configuration and full Foundation, which serve does not use: less to build).
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        // serve's one line per request, its shutdown and reload signals, its own /metrics.
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        // The system OpenSSL (Debian: libssl-dev). Includes only; see shim.h.
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        // Linux's epoll and eventfd headers (the probe's reactor), and glibc's thread naming and timed join. Includes only.
        .systemLibrary(name: "CEpoll"),
        // c-ares (Debian: libc-ares-dev), the asynchronous DNS resolver the probe drives from its reactor. Includes only.
        .systemLibrary(name: "CAres", pkgConfig: "libcares", providers: [.apt(["libc-ares-dev"]), .brew(["c-ares"])]),
        // The system zlib (Debian: zlib1g-dev): raw DEFLATE for .ipa archives. Includes only.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        // The system libxml2's headers (Debian: libxml2-dev): the line and column of each Info.plist key.
        // Includes only, and not linked: PropertyListPositions opens libxml2 with dlopen when it first
        // reads positions, so no other command loads it and the ICU libraries it brings (a pkgConfig
        // here would put -lxml2 on every link; docs/performance.md, "Start-up").
        .systemLibrary(name: "CLibXML2", providers: [.apt(["libxml2-dev"]), .brew(["libxml2"])]),
        // One-line wrappers for OpenSSL macros the Swift importer cannot see. No logic.
        .target(name: "CATSProbeShims", dependencies: ["COpenSSL"]),
        // Owners of OpenSSL objects (X509, EVP_PKEY, BIO, SSL_CTX) and the error queue, for the probe and the test servers.
        .target(name: "OpenSSLSupport", dependencies: ["COpenSSL", "CATSProbeShims"]),
        // Text and files from outside, for every module: escaping (UntrustedText), the bounded file
        // reader, spelling distance, number and whitespace text. Not a product: no public API uses it.
        .target(name: "TextSupport"),
        // Plain values shared by the probe and the policy: versions, suites, observations.
        .target(name: "TLSFacts", dependencies: ["TextSupport"]),
        // One typed property-list value: XML and binary read/write, the bounded file reader,
        // NSDictionary's text form, JSON that keeps integers integers.
        .target(name: "PropertyList", dependencies: ["TextSupport"]),
        // Where each key of an XML Info.plist is (line, column), read with libxml2, for findings
        // located in the file (plist lint/check --format xcode|sarif).
        .target(name: "PropertyListPositions", dependencies: ["CLibXML2", "TextSupport"],
                // libxml2's headers, where Debian, Fedora and Alpine put them (pkg-config's cflags for
                // libxml-2.0; a local package may use unsafe flags, docs/embedding.md).
                swiftSettings: [.unsafeFlags(["-Xcc", "-I/usr/include/libxml2"])]),
        // The ATS rules, pure Swift: no OpenSSL, no sockets. What an engineer reads to learn ATS.
        .target(name: "ATSPolicy", dependencies: ["TextSupport", "TLSFacts", "PropertyList"]),
        // What an app writes, derived from the rules: exception advice, suggestion and merge,
        // tightening an existing dictionary, lint, server fixes.
        .target(name: "ATSAdvice", dependencies: ["TextSupport", "TLSFacts", "PropertyList", "ATSPolicy"]),
        // Trust without a socket: path building over OpenSSL, Apple's root store, anchors and their
        // kinds, caIssuers behind a protocol, SCT checks, the chain judged by Apple's rules.
        .target(name: "ATSTrust", dependencies: ["TextSupport", "TLSFacts", "ATSPolicy", "COpenSSL", "CATSProbeShims", "OpenSSLSupport"]),
        // Real handshakes over the system OpenSSL, on a ProbeRuntime (reactor, executor, resolver, descriptor budget).
        .target(name: "ATSProbe", dependencies: ["TextSupport", "TLSFacts", "ATSPolicy", "ATSTrust", "COpenSSL", "CATSProbeShims", "OpenSSLSupport", "CEpoll", "CAres",
                                                 .product(name: "NIOHPACK", package: "swift-nio-http2"),
                                                 .product(name: "NIOCore", package: "swift-nio"),
                                                 .product(name: "DequeModule", package: "swift-collections"),
                                                 .product(name: "HeapModule", package: "swift-collections")]),
        // The engine: nscurl's test run (offers from the policy, handshakes from the probe, verdicts,
        // redirects), the plist-check run, probe's and cert's judgements, the app check over ATSApp's inventory,
        // and the one scheduler every many-target command runs through, with its limits.
        .target(name: "ATSEngine", dependencies: ["TextSupport", "TLSFacts", "PropertyList", "ATSPolicy", "ATSAdvice", "ATSTrust", "ATSProbe", "ATSApp", "ATSContract"]),
        // The versioned JSON contract (docs/json-schema.md) alone: the Codable types (DiagnosticsJSON,
        // AuditRecord, RunInfo, TargetReport, AuditVerdict), the strict reader and the writer. Links
        // no OpenSSL, c-ares or epoll (ContractDependencyTests), so a tool that only reads atsprobe's
        // JSON depends on this.
        .target(name: "ATSContract", dependencies: ["TextSupport", "TLSFacts", "PropertyList", "ATSPolicy", "ATSAdvice"]),
        // The renderers over the JSON contract alone (ATSContract, re-exported): the reports (text, HTML, CSV,
        // Markdown, JUnit, SARIF, metrics) `atsprobe report` writes from a file, the baseline comparison,
        // the one output format type and the registry each command's result declares its formats in
        // (OutputRegistry), and the renderers that take no engine value (plist lint's and explain's text).
        // Links no OpenSSL, c-ares or epoll (ContractDependencyTests).
        .target(name: "ATSReport", dependencies: ["ATSContract", "TextSupport", "TLSFacts", "PropertyList", "PropertyListPositions", "ATSPolicy", "ATSAdvice",
                                                  "ATSFiles"]),
        // Each command's output over the documents the engine made (package access; not a product):
        // each command's result and its formats (OutputRegistry), the renderers (Outputs/), the
        // audit's sink, --rules all's grid. No OpenSSL, c-ares or epoll (ContractDependencyTests).
        .target(name: "ATSCommandOutputs", dependencies: ["ATSReport", "ATSContract", "TextSupport", "TLSFacts", "PropertyList", "PropertyListPositions",
                                                          "ATSPolicy", "ATSAdvice", "ATSApp", "ATSFiles"]),
        // The command line's files: write(2) streams, bounded whole-file reads, atomic replacement
        // through symlinks, the --merge lock, target lists read as they come (`AuditInput`, which waits
        // with `ResumeOnce`) (`package` access; not a product). No OpenSSL, c-ares or epoll.
        .target(name: "ATSFiles", dependencies: ["TextSupport", "TLSFacts"]),
        // The command line repaired before argument-parser parses it (did-you-mean, nscurl's
        // --ats-diagnostics, an option before the subcommand), over any root command's model.
        .target(name: "ArgumentRepair", dependencies: ["TextSupport", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        // An app's bundles, dictionaries and the hosts it names (atsprobe app): a bounded zip reader, no network.
        .target(name: "ATSApp", dependencies: ["TextSupport", "TLSFacts", "PropertyList", "ATSPolicy", "ATSAdvice", "CZlib"]),
        // Observations and table-driven servers for the policy and advice tests (tests only; no sockets).
        .target(name: "ATSPolicyFixtures", dependencies: ["TLSFacts", "ATSPolicy"]),
        // App bundles and .ipa archives built at test time, hostile ones included (tests only).
        .target(name: "ATSAppFixtures", dependencies: ["CZlib", "PropertyList"]),
        // Loopback TLS servers and certificates generated at test time (tests and scripts only).
        .target(name: "ATSTestServers", dependencies: ["TextSupport", "TLSFacts", "COpenSSL", "CATSProbeShims", "OpenSSLSupport", "TestSupport",
                                                       .product(name: "NIOHPACK", package: "swift-nio-http2"),
                                                 .product(name: "NIOCore", package: "swift-nio")]),
        // `atsprobe serve`: the exporter and web service over the engine (docs/serve.md). Probes go
        // through RunContext and DiagnosticsRunner, as diagnose's do; the pages and series are
        // ATSReport's renderers.
        .target(name: "ATSServe", dependencies: ["TextSupport", "TLSFacts", "ATSPolicy", "ATSTrust", "ATSProbe", "ATSEngine", "ATSReport",
                                                 .product(name: "Hummingbird", package: "hummingbird"),
                                                 .product(name: "HummingbirdCore", package: "hummingbird"),
                                                 .product(name: "HTTPTypes", package: "swift-http-types"),
                                                 .product(name: "Logging", package: "swift-log"),
                                                 .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                                                 .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                                                 .product(name: "Prometheus", package: "swift-prometheus"),
                                                 .product(name: "NIOCore", package: "swift-nio")]),
        // What each command does once argument-parser has parsed its options: the run's context from
        // the options' values (`ConnectionSettings`), the input read, the engine driven (audit's run with
        // its progress line and signals, app's, plist check's, explain's, pins', serve's), the process's probe
        // runtime and the exit status (`package` access; not a product).
        .target(name: "CommandRuns", dependencies: ["TextSupport", "TLSFacts", "PropertyList", "ATSPolicy", "ATSAdvice", "ATSTrust", "ATSProbe",
                                                    "ATSEngine", "ATSApp", "ATSReport", "ATSCommandOutputs", "ATSFiles", "ATSServe"]),
        .executableTarget(
            name: "atsprobe",
            dependencies: [
                "TextSupport", "TLSFacts", "PropertyList", "PropertyListPositions", "ATSPolicy", "ATSAdvice", "ATSTrust", "ATSProbe", "ATSEngine", "ATSApp", "ATSReport",
                "ATSCommandOutputs", "ATSFiles", "ArgumentRepair", "CommandRuns",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            // Release builds carry the Swift runtime inside the binary: about 3.5 MiB less resident
            // memory per run than loading it from shared libraries (docs/performance.md, "Memory").
            // -static-stdlib also exports every symbol of the program (swiftc's static-stdlib-args.lnk
            // passes -export-dynamic): 31,000 dynamic symbols no one looks up, which the Swift runtime's
            // start-up `dladdr` walked one by one (1.0 M instructions a run; docs/performance.md,
            // "Start-up"). `--no-export-dynamic` comes after that file on the link line, so it wins.
            linkerSettings: [.unsafeFlags(["-static-stdlib", "-l_FoundationCShims", "-l_FoundationCollections", "-Xlinker", "--no-export-dynamic"],
                                          .when(platforms: [.linux], configuration: .release))]
        ),
        // docs/embedding.md's complete example: nscurl's run for one URL on a runtime of its own
        // (built with the package, run by EndToEndTests' EmbeddingExampleTests).
        .executableTarget(name: "EmbeddingExample", dependencies: ["ATSEngine", "ATSPolicy", "ATSProbe", "ATSTrust", "TLSFacts"],
                          path: "Examples/Embedding"),
        // Test support (tests only): the one way tests start a program (posix_spawn, output drained, killed
        // at a deadline) and make scratch directories.
        .target(name: "TestSupport"),
        .testTarget(name: "TLSFactsTests", dependencies: ["TextSupport", "TLSFacts"]),
        .testTarget(name: "OpenSSLSupportTests", dependencies: ["OpenSSLSupport", "COpenSSL", "CATSProbeShims"]),
        .testTarget(name: "ATSTestServersTests", dependencies: ["ATSTestServers", "TLSFacts", "TestSupport"]),
        .testTarget(name: "PropertyListTests", dependencies: ["TextSupport", "TestSupport", "PropertyList", "TLSFacts"]),
        .testTarget(name: "ATSPolicyTests", dependencies: ["ATSPolicy", "ATSPolicyFixtures", "TLSFacts", "PropertyList"]),
        .testTarget(name: "ATSAdviceTests", dependencies: ["TextSupport", "TestSupport", "ATSAdvice", "ATSPolicy", "ATSPolicyFixtures", "TLSFacts", "PropertyList", "PropertyListPositions"]),
        // Trust offline: the evaluator, its cache, the fetch address policy, chains read from files.
        .testTarget(name: "ATSTrustTests", dependencies: ["ATSTrust", "ATSPolicy", "TLSFacts", "ATSTestServers", "TestSupport", "OpenSSLSupport"]),
        .testTarget(name: "ATSProbeTests", dependencies: ["TextSupport", "ATSProbe", "ATSFiles", "ATSTrust", "ATSPolicy", "TLSFacts", "ATSTestServers", "TestSupport", "OpenSSLSupport"]),
        // The engine's scheduler with a fake runner (milliseconds), and against loopback servers.
        .testTarget(name: "ATSEngineTests", dependencies: ["TextSupport", "ATSEngine", "ATSPolicy", "ATSAdvice", "ATSProbe", "ATSTrust", "PropertyList", "TLSFacts", "ATSTestServers", "TestSupport", "ATSFiles"]),
        // The report library alone: records read, merged, escaped and written without the executable.
        .testTarget(name: "ATSReportTests", dependencies: ["TextSupport", "ATSReport", "ATSCommandOutputs", "ATSPolicy", "PropertyList", "TestSupport", "TLSFacts"]),
        // CommandLineRepair over a small command tree of its own, without the binary.
        .testTarget(name: "ArgumentRepairTests", dependencies: ["ArgumentRepair", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        .testTarget(name: "ATSAppTests", dependencies: ["ATSApp", "ATSAppFixtures", "ATSPolicy", "TLSFacts", "PropertyList", "TestSupport"]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["ATSAdvice", "ATSPolicy", "ATSProbe", "ATSTrust", "ATSReport", "ATSCommandOutputs", "ATSTestServers", "ATSAppFixtures", "TLSFacts", "TestSupport", "PropertyList", .target(name: "atsprobe"),
                           .target(name: "EmbeddingExample")]
        ),
    ]
)
