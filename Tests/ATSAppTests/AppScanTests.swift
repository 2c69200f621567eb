import ATSApp
import ATSAppFixtures
import ATSPolicy
import Foundation
import TLSFacts
import Testing
import PropertyList
import TestSupport

/// Steps 1 to 3 of `atsprobe app` on apps built here: bundles, dictionaries, hosts, noise.
@Suite struct AppScanTests {
    /// Removed with the suite's instance (one per test).
    let files: TemporaryDirectory
    var directory: String { files.path }

    init() throws {
        files = try TemporaryDirectory(prefix: "atsprobe-app")
    }

    static var mainATS: [String: PropertyListValue] { ["NSAllowsArbitraryLoads": true,
                                                       "NSExceptionDomains": ["old.planted.test": ["NSExceptionMinimumTLSVersion": "TLSv1.0"]]] }
    static var extensionATS: [String: PropertyListValue] { ["NSExceptionDomains": ["share.planted.test": ["NSExceptionMinimumTLSVersion": "TLSv1.1"]]] }

    static func demo() -> AppFixture {
        AppFixture.demo(mainATS: mainATS, extensionATS: extensionATS,
                        mainHosts: ["https://api.planted.test/v1/items", "http://media.planted.test/a.mp4", "cdn.planted.com"],
                        extensionHosts: ["https://share.planted.test/upload"],
                        frameworkHosts: ["https://metrics.planted.test:8443/collect"],
                        resourceJSON: "{\"endpoint\": \"https://config.planted.test/app.json\"}")
    }

    func ipa(_ app: AppFixture) throws -> String {
        let path = directory + "/Demo.ipa"
        try Data(app.ipa()).write(to: URL(fileURLWithPath: path))
        return path
    }

    func summary(_ hosts: [FoundHost]) -> [String] {
        hosts.map { "\($0.bundle.isEmpty ? "app" : $0.bundle) \($0.target)" }
    }

    /// Local names and addresses the app carries are hosts to judge, not noise (issue 39): a load
    /// to one can fail, and `app` must count it in "will fail" as `plist check` does.
    @Test func localNamesAndAddressesAreChecked() throws {
        var app = AppFixture()
        app.files["Info.plist"] = AppFixture.infoPlist(identifier: "test.atsprobe.local", executable: "Demo", ats: ["NSAllowsLocalNetworking": false])
        app.files["Demo"] = AppFixture.executable(strings: ["https://printer.local:8443/status", "http://localhost:8080/debug", "https://127.0.0.1:9443/"])
        let bundle = try app.writeApp(in: directory)
        let inventory = try AppScan.inventory(path: bundle)
        #expect(Set(inventory.hosts.map(\.host)) == ["printer.local", "localhost", "127.0.0.1"], "\(inventory.hosts.map(\.target))")
        #expect(!inventory.filtered.contains { ["printer.local", "localhost", "127.0.0.1"].contains($0.host) },
                "\(inventory.filtered.map { "\($0.host) \($0.filtered?.rawValue ?? "")" })")
    }

    @Test func ipaBundlesDictionariesAndOwners() throws {
        let inventory = try AppScan.inventory(path: try ipa(Self.demo()))
        #expect(inventory.inputKind == .ipa)
        #expect(inventory.appName == "Demo.app")
        #expect(inventory.bundles.map(\.path) == ["", "Frameworks/Net.framework", "PlugIns/Share.appex"])
        #expect(inventory.bundles.map(\.kind) == [.app, .framework, .appExtension])
        #expect(inventory.bundles.map(\.dictionaryOwner) == ["", "", "PlugIns/Share.appex"])
        #expect(inventory.bundles[0].identifier == "test.atsprobe.demo")
        #expect(inventory.bundles[0].executablePath == "Demo")
        #expect(inventory.bundles[2].atsDictionary?["NSExceptionDomains"] != nil)
        #expect(inventory.bundles.map { $0.document?.format } == [.xml, .xml, .binary])
        #expect(inventory.bundles[0].lint.contains { $0.keyPath == "NSAppTransportSecurity.NSAllowsArbitraryLoads" })
    }

    @Test func plantedHostsAreFoundWithTheirBundleAndNoiseIsFiltered() throws {
        let inventory = try AppScan.inventory(path: try ipa(Self.demo()))
        #expect(summary(inventory.hosts) == [
            "app https://api.planted.test/", "app https://cdn.planted.com/", "app https://config.planted.test/",
            "app http://media.planted.test/", "app https://metrics.planted.test:8443/", "app https://old.planted.test/",
            "PlugIns/Share.appex https://share.planted.test/",
        ])
        // An NSExceptionDomains key is a host the app declares: checked like the others.
        #expect(inventory.hosts.first { $0.host == "old.planted.test" }?.sources == ["Info.plist"])
        let api = try #require(inventory.hosts.first { $0.host == "api.planted.test" })
        #expect(api.sources == ["Demo"])
        #expect(api.written == ["https://api.planted.test/v1/items"])
        #expect(inventory.hosts.first { $0.host == "config.planted.test" }?.sources == ["config.json"])
        #expect(inventory.hosts.first { $0.host == "metrics.planted.test" }?.sources == ["Frameworks/Net.framework/Net"])

        let filtered = Dictionary(inventory.filtered.map { ($0.host, $0.filtered) }, uniquingKeysWith: { a, _ in a })
        #expect(filtered["www.apple.com"] == .apple)
        #expect(filtered["developer.apple.com"] == .apple)
        #expect(filtered["www.w3.org"] == .schema)
        #expect(filtered["www.example.com"] == .example)
        #expect(filtered["www.apache.org"] == .documentation)
        let everything = Set((inventory.hosts + inventory.filtered).map(\.host))
        #expect(!everything.contains("signing.planted.test"), "_CodeSignature is not scanned")
        #expect(!everything.contains("mail.planted.test"), "an e-mail address is not a host")
    }

    /// Issue 25: a host named only in NSExceptionDomains is checked on the port the code
    /// shows for it (here 8443, as a URL and as a bare host:port), not also on a 443 guess; one
    /// the code does not show stays on 443.
    @Test func aDictionaryHostIsCheckedOnThePortsTheCodeShows() throws {
        let ats: [String: PropertyListValue] = ["NSExceptionDomains": ["legacy.planted.test": ["NSExceptionMinimumTLSVersion": "TLSv1.0"],
                                                                         "only.planted.test": ["NSExceptionMinimumTLSVersion": "TLSv1.1"]]]
        let app = AppFixture.demo(mainATS: ats, extensionATS: nil,
                                  mainHosts: ["https://legacy.planted.test:8443/v1", "legacy.planted.test:9443"],
                                  extensionHosts: [], frameworkHosts: [], resourceJSON: "{}")
        let inventory = try AppScan.inventory(path: try ipa(app))
        let legacy = inventory.hosts.filter { $0.host == "legacy.planted.test" }.map(\.target)
        #expect(legacy == ["https://legacy.planted.test:8443/", "https://legacy.planted.test:9443/"], "\(legacy)")
        #expect(inventory.hosts.filter { $0.host == "only.planted.test" }.map(\.target) == ["https://only.planted.test/"])
        #expect(inventory.notes.contains { $0.hasPrefix("legacy.planted.test: named in the dictionary and found in code as") }, "\(inventory.notes)")
    }

    @Test func appDirectoryAndXcarchiveReadTheSame() throws {
        let fromIPA = try AppScan.inventory(path: try ipa(Self.demo()))
        let app = try Self.demo().writeApp(in: directory + "/dir")
        let fromDirectory = try AppScan.inventory(path: app)
        #expect(fromDirectory.inputKind == .app)
        #expect(summary(fromDirectory.hosts) == summary(fromIPA.hosts))
        try Self.demo().writeApp(in: directory + "/Demo.xcarchive/Products/Applications")
        // The archive's own Info.plist (its metadata) is not the app's.
        try Data(AppFixture.infoPlist(identifier: "archive", executable: "none", ats: nil))
            .write(to: URL(fileURLWithPath: directory + "/Demo.xcarchive/Info.plist"))
        let fromArchive = try AppScan.inventory(path: directory + "/Demo.xcarchive")
        #expect(fromArchive.inputKind == .xcarchive)
        #expect(summary(fromArchive.hosts) == summary(fromIPA.hosts))
    }

    /// A macOS app: Contents/, an executable under MacOS/, a framework whose Info.plist and
    /// executable are reached through the Versions/Current and Resources links.
    @Test func macOSLayoutWithVersionedFramework() throws {
        var app = AppFixture(name: "Mac")
        app.files["Contents/Info.plist"] = AppFixture.infoPlist(identifier: "mac", executable: "Mac", ats: ["NSAllowsArbitraryLoads": true])
        app.files["Contents/MacOS/Mac"] = AppFixture.executable(strings: ["https://mac.planted.test/"])
        let framework = "Contents/Frameworks/Kit.framework/"
        app.files[framework + "Versions/A/Resources/Info.plist"] = AppFixture.infoPlist(identifier: "kit", executable: "Kit", packageType: "FMWK", ats: nil)
        app.files[framework + "Versions/A/Kit"] = AppFixture.executable(strings: ["https://kit.planted.test/"], seed: 3)
        app.symlinks[framework + "Versions/Current"] = "A"
        app.symlinks[framework + "Resources"] = "Versions/Current/Resources"
        app.symlinks[framework + "Kit"] = "Versions/Current/Kit"
        let path = try app.writeApp(in: directory + "/mac")
        let inventory = try AppScan.inventory(path: path)
        #expect(inventory.appName == "Mac.app")
        #expect(inventory.bundles.map(\.path) == ["", "Contents/Frameworks/Kit.framework"])
        #expect(inventory.bundles.map(\.infoPlistPath) == ["Contents/Info.plist", framework + "Versions/A/Resources/Info.plist"])
        #expect(inventory.bundles.map(\.executablePath) == ["Contents/MacOS/Mac", framework + "Versions/A/Kit"])
        #expect(summary(inventory.hosts) == ["app https://kit.planted.test/", "app https://mac.planted.test/"])
    }

    /// A Mach-O header whose LC_ENCRYPTION_INFO_64 has cryptid 1: the report says why nothing
    /// could be read from it; cryptid 0, or no such command, says nothing.
    @Test func fairPlayEncryptedExecutableIsNoted() throws {
        func machO(cryptid: UInt32?) -> [UInt8] {
            func le(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8(v >> 24)] }
            // LC_UUID (24 bytes), then LC_ENCRYPTION_INFO_64 (24 bytes: cmd, cmdsize, cryptoff, cryptsize, cryptid, pad).
            var commands = le(0x1B) + le(24) + [UInt8](repeating: 7, count: 16)
            if let cryptid { commands += le(0x2C) + le(24) + le(0x4000) + le(0x8000) + le(cryptid) + le(0) }
            let count: UInt32 = cryptid == nil ? 1 : 2
            let header = le(0xFEED_FACF) + le(0x0100_000C) + le(0) + le(2) + le(count) + le(UInt32(commands.count)) + le(0) + le(0)
            return header + commands + AppFixture.executable(strings: ["https://still.planted.test/"])
        }
        #expect(MachOEncryption.isEncrypted(machO(cryptid: 1)[...]) == true)
        #expect(MachOEncryption.isEncrypted(machO(cryptid: 0)[...]) == false)
        #expect(MachOEncryption.isEncrypted(machO(cryptid: nil)[...]) == false)
        #expect(MachOEncryption.isEncrypted(Array("not a binary".utf8)[...]) == nil)
        #expect(MachOEncryption.isEncrypted(Array(machO(cryptid: 1)[..<40])[...]) == nil, "load commands cut off")

        var app = Self.demo()
        app.files["Demo"] = machO(cryptid: 1)
        let encrypted = try AppScan.inventory(path: try ipa(app))
        #expect(encrypted.notes == ["Demo is FairPlay-encrypted (an App Store download): no host can be read from it; use a development, ad hoc or enterprise build, or the .xcarchive"])
        app.files["Demo"] = machO(cryptid: 0)
        #expect(try AppScan.inventory(path: try ipa(app)).notes.isEmpty)
    }

    /// An Info.plist without CFBundleExecutable: the executable is found by the bundle's name,
    /// as CFBundle finds it, and the report says so; with no such file, it says nothing was scanned.
    @Test func aBundleWithoutCFBundleExecutableIsScannedByItsNameAndSaysSo() throws {
        var app = Self.demo()
        let plist: [String: Any] = ["CFBundleIdentifier": "test.atsprobe.demo.share", "CFBundlePackageType": "XPC!"]
        app.files["PlugIns/Share.appex/Info.plist"] = [UInt8](try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0))
        let byName = try AppScan.inventory(path: try ipa(app))
        let share = try #require(byName.bundle("PlugIns/Share.appex"))
        #expect(share.executablePath == "PlugIns/Share.appex/Share")
        #expect(share.notes.contains("its Info.plist has no CFBundleExecutable: scanned 'Share', the bundle's name, as CFBundle finds it"), "\(share.notes)")
        #expect(summary(byName.hosts).contains("PlugIns/Share.appex https://share.planted.test/"))

        app.files["PlugIns/Share.appex/ShareBinary"] = app.files.removeValue(forKey: "PlugIns/Share.appex/Share")
        let missing = try AppScan.inventory(path: try ipa(app))
        let unscanned = try #require(missing.bundle("PlugIns/Share.appex"))
        #expect(unscanned.executablePath == nil)
        #expect(unscanned.notes.contains("its Info.plist has no CFBundleExecutable and no file has the bundle's name 'Share': no executable scanned"), "\(unscanned.notes)")
        #expect(!summary(missing.hosts).contains("PlugIns/Share.appex https://share.planted.test/"))
    }

    @Test func includeExcludeAndHostsOnly() throws {
        let path = try ipa(Self.demo())
        let filtered = try AppScan.inventory(path: path, filter: NoiseFilter(include: ["www.example.com"], exclude: [".planted.com"]))
        #expect(filtered.hosts.contains { $0.host == "www.example.com" })
        #expect(filtered.filtered.contains { $0.host == "cdn.planted.com" && $0.filtered == .excluded })

        let only = try AppScan.inventory(path: path, hostsOnly: [try Target(parsing: "api.planted.test"), try Target(parsing: "https://extra.planted.test:9443/")])
        #expect(summary(only.hosts) == ["app https://api.planted.test/", "app https://extra.planted.test:9443/"])
        #expect(only.hosts.last?.sources == ["the hosts asked for"])
        #expect(only.filtered.contains { $0.host == "share.planted.test" && $0.filtered == .notListed })
    }

    @Test func extensionWithoutADictionaryIsNoted() throws {
        var app = Self.demo()
        app.files["PlugIns/Share.appex/Info.plist"] = AppFixture.infoPlist(identifier: "x", executable: "Share", ats: nil)
        let inventory = try AppScan.inventory(path: try ipa(app))
        let share = try #require(inventory.bundle("PlugIns/Share.appex"))
        #expect(share.notes.contains { $0.contains("declares no NSAppTransportSecurity") })
    }

    /// A framework inside an extension runs in the extension's process: its hosts load under the
    /// extension's dictionary; a framework's own NSAppTransportSecurity is ignored and said so.
    @Test func frameworkInAnExtensionLoadsUnderTheExtensionsDictionary() throws {
        var app = Self.demo()
        let framework = "PlugIns/Share.appex/Frameworks/Upload.framework"
        app.files[framework + "/Info.plist"] = AppFixture.infoPlist(identifier: "upload", executable: "Upload", packageType: "FMWK",
                                                                     ats: ["NSAllowsArbitraryLoads": true])
        app.files[framework + "/Upload"] = AppFixture.executable(strings: ["https://upload.planted.test/"], seed: 11)
        let inventory = try AppScan.inventory(path: try ipa(app))
        let upload = try #require(inventory.bundle(framework))
        #expect(upload.kind == .framework)
        #expect(upload.dictionaryOwner == "PlugIns/Share.appex")
        #expect(upload.lint.isEmpty)
        #expect(upload.notes == ["declares NSAppTransportSecurity, which ATS ignores: a framework's loads run under the dictionary of PlugIns/Share.appex"])
        #expect(inventory.hosts.first { $0.host == "upload.planted.test" }?.bundle == "PlugIns/Share.appex")
    }

    @Test func missingOrBrokenMainInfoPlistIsOneLine() throws {
        var app = Self.demo()
        app.files["Info.plist"] = Array("not a plist".utf8)
        #expect(throws: AppReadError.self) { try AppScan.inventory(path: try ipa(app)) }
        app.files["Info.plist"] = nil
        let path0 = try ipa(app)
        do { _ = try AppScan.inventory(path: path0); Issue.record("accepted") } catch {
            #expect(error.problem == "no Info.plist in Demo.app")
        }
        var empty = ZipWriter()
        empty.add("readme.txt", Array("hi".utf8))
        let path = directory + "/empty.ipa"
        try Data(empty.finished()).write(to: URL(fileURLWithPath: path))
        #expect(throws: AppReadError.self) { try AppScan.inventory(path: path) }
    }
}
