@testable import ATSApp
import Testing

/// What counts as a host in an app's bytes (docs/app.md, "What the app talks to").
@Suite struct HostScannerTests {
    func hosts(_ text: String) -> [String] {
        HostScanner.scan(Array(text.utf8)).map { "\($0.form.rawValue) \($0.host)\($0.port.map { ":\($0)" } ?? "")" }
    }

    @Test func urlsWithPortsUserInfoAndCase() {
        #expect(hosts("\0https://API.Planted.test:8443/v1?q=1\0") == ["https api.planted.test:8443"])
        #expect(hosts("x\0http://user:pw@cdn.planted.test/a.png\0") == ["http cdn.planted.test"])
        #expect(hosts("\0https://[2001:db8::1]:443/x\0") == ["https 2001:db8::1:443"])
        #expect(hosts("\0https://10.0.0.7/\0") == ["https 10.0.0.7"])
        #expect(hosts("see https://docs.planted.test.") == ["https docs.planted.test"])
    }

    /// Issue 25: a bare "host:port" in a binary keeps its port.
    @Test func aBareHostWithAPortKeepsIt() {
        #expect(hosts("\0api.planted.com:8443\0") == ["bare api.planted.com:8443"])
        #expect(hosts("connect to api.planted.com:443 now") == ["bare api.planted.com:443"])
        // Not a port: out of range, more digits, a time-like run, letters after it.
        #expect(hosts("\0api.planted.com:99999\0") == ["bare api.planted.com"])
        #expect(hosts("\0api.planted.com:123456\0") == ["bare api.planted.com"])
        #expect(hosts("\0api.planted.com:12:30\0") == ["bare api.planted.com"])
        #expect(hosts("\0api.planted.com:80abc\0") == ["bare api.planted.com"])
    }

    @Test func templatesAndNonURLsAreNotHosts() {
        #expect(hosts("\0https://%@/api/%@\0https://{host}/x\0https://\0").isEmpty)
        #expect(hosts("\0xhttps://a.planted.test/\0").isEmpty)
    }

    @Test func bareNamesNeedAKnownTLDAndLowerCase() {
        #expect(hosts("\0api.planted.com\0") == ["bare api.planted.com"])
        #expect(hosts("\0cdn.planted.test\0") == ["bare cdn.planted.test"])
        let notHosts = ["UIKit.framework", "Demo.app", "NSString.h", "main.py", "script.sh", "com.example.app",
                        "org.cocoapods.demo", "user@mail.planted.test", "1.2.3.4", "v1.2.com.x", "images/photo.png",
                        "Foo.Bar.com", "demo.app", "io.sentry"]
        for text in notHosts {
            #expect(hosts("\0\(text)\0").isEmpty, "\(text)")
        }
        #expect(hosts("\0api.demo.app\0") == ["bare api.demo.app"])
    }

    /// Fed in pieces of any size, the stream finds what a whole scan finds: no hit is split.
    @Test(arguments: [3, 7, 100, 4097, 5000, 65536])
    func streamingFindsWhatAWholeScanFinds(_ piece: Int) {
        var bytes = [UInt8](repeating: 0x41, count: 3000)  // a long run of name bytes ("AAA...")
        for (i, text) in ["https://a.planted.test/x", "b.planted.com", "HTTP://C.planted.test:8080/", "user@d.planted.test"].enumerated() {
            bytes += Array(repeating: UInt8(i * 37 % 200 + 1), count: 4000 + i * 1111) + [0] + Array(text.utf8) + [0]
        }
        bytes += Array("tail https://e.planted.test".utf8)
        let whole = HostScanner.scan(bytes)
        #expect(whole.map(\.host) == ["a.planted.test", "b.planted.com", "c.planted.test", "e.planted.test"])
        var stream = HostScanner.Stream()
        var index = 0
        while index < bytes.count {
            stream.feed(bytes[index..<min(index + piece, bytes.count)])
            index += piece
        }
        #expect(stream.finish() == whole)
    }

    @Test func utf16StringsFilesAreRead() {
        var bytes: [UInt8] = [0xFF, 0xFE]
        for unit in "\"url\" = \"https://strings.planted.test/\";".utf16 { bytes += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        #expect(HostScanner.scan(bytes).map(\.host) == ["strings.planted.test"])
    }

    @Test func noiseFilterReasonsAndOverrides() {
        let filter = NoiseFilter()
        #expect(filter.reason("www.apple.com") == .apple)
        #expect(filter.reason("api.apple-cloudkit.com") == .apple)
        #expect(filter.reason("www.w3.org") == .schema)
        #expect(filter.reason("www.apache.org") == .documentation)
        // Local names and addresses are judged, not filtered (issue 39): a load to them can fail.
        #expect(filter.reason("localhost") == nil)
        #expect(filter.reason("127.0.0.1") == nil)
        #expect(filter.reason("printer.local") == nil)
        #expect(filter.reason("www.example.com") == .example)
        #expect(filter.reason("a.invalid") == .example)
        #expect(filter.reason("api.planted.test") == nil)
        #expect(filter.reason("notapple.com") == nil, "a suffix match is on a label boundary")

        let custom = NoiseFilter(include: ["*.example.com"], exclude: ["tracker.planted.test", ".ads.planted.test"])
        #expect(custom.reason("www.example.com") == nil)
        #expect(custom.reason("example.com") == nil)
        #expect(custom.reason("example.org") == .example)
        #expect(custom.reason("tracker.planted.test") == .excluded)
        #expect(custom.reason("x.tracker.planted.test") == nil, "a pattern without a dot in front is exact")
        #expect(custom.reason("a.b.ads.planted.test") == .excluded)
    }
}
