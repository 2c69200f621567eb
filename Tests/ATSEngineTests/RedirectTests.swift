import Testing
@testable import ATSEngine
import TLSFacts

/// Where a Location header leads (Redirects.resolve): RFC 3986 resolution, and the values that
/// must never reach a request line (docs/robustness.md, rows 5 and 12). Loads that follow
/// redirects against loopback servers are in `HostileRedirectTests`.
@Suite("Redirect resolution")
struct RedirectTests {
    /// RFC 3986 5.4.1 and 5.4.2 (the reference's own examples, on base http://a/b/c/d;p?q) and
    /// the row 12.
    @Test(arguments: [
        ("g", "/b/c/g"), ("./g", "/b/c/g"), ("g/", "/b/c/g/"), ("/g", "/g"), ("?y", "/b/c/d;p?y"),
        ("g?y", "/b/c/g?y"), ("#s", "/b/c/d;p?q"), ("g#s", "/b/c/g"), (";x", "/b/c/;x"), ("", "/b/c/d;p?q"),
        (".", "/b/c/"), ("./", "/b/c/"), ("..", "/b/"), ("../", "/b/"), ("../g", "/b/g"), ("../..", "/"),
        ("../../", "/"), ("../../g", "/g"), ("../../../g", "/g"), ("../../../../g", "/g"), ("/./g", "/g"),
        ("/../g", "/g"), ("g.", "/b/c/g."), (".g", "/b/c/.g"), ("g..", "/b/c/g.."), ("..g", "/b/c/..g"),
        ("./../g", "/b/g"), ("./g/.", "/b/c/g/"), ("g/./h", "/b/c/g/h"), ("g/../h", "/b/c/h"),
        ("g;x=1/./y", "/b/c/g;x=1/y"), ("g;x=1/../y", "/b/c/y"),
    ])
    func relativeLocationsResolveAsRFC3986(reference: String, path: String) throws {
        let base = Target(host: "a", port: 443, path: "/b/c/d;p?q")
        let next = try #require(Redirects.resolve(reference, from: base))
        #expect(next.path == path)
        #expect(next.host == "a")
    }

    @Test func upwardLocationFromADirectoryClimbsToTheRoot() throws {
        let base = Target(host: "host", port: 443, path: "/dir/relative2")
        #expect(try #require(Redirects.resolve("../../up", from: base)).url == "https://host/up")
        #expect(try #require(Redirects.resolve("https://other/a/../b", from: base)).url == "https://other/b")
        #expect(try #require(Redirects.resolve("//other/x/./y", from: base)).url == "https://other/x/y")
        for bad in ["/x\r\nX-Injected: 1", "/x\u{0}", "https://h/\u{85}", "x\u{7F}"] {
            #expect(Redirects.resolve(bad, from: base) == nil, "\(bad.debugDescription) must be refused")
        }
        // Spaces and non-ASCII are sent percent-encoded, never raw.
        #expect(try #require(Redirects.resolve("/a b/\u{202E}", from: base)).path == "/a%20b/%E2%80%AE")
    }
}
