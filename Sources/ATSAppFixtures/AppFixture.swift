import Foundation
import PropertyList

/// A small app built at test time: Info.plists, executable-like binaries holding URL strings
/// among random bytes, resources; written out as an .app directory or packed as an .ipa.
package struct AppFixture {
    /// The app's directory name without ".app".
    package var name: String
    /// App-relative path -> contents.
    package var files: [String: [UInt8]] = [:]
    /// App-relative path -> link text.
    package var symlinks: [String: String] = [:]

    package init(name: String = "Demo") { self.name = name }

    /// An XML Info.plist with the bundle keys every app has, and `ats` as NSAppTransportSecurity.
    package static func infoPlist(identifier: String, executable: String, packageType: String = "APPL",
                                 ats: [String: PropertyListValue]?, extra: [String: PropertyListValue] = [:], binary: Bool = false) -> [UInt8] {
        var root: [String: PropertyListValue] = ["CFBundleIdentifier": .string(identifier), "CFBundleExecutable": .string(executable),
                                                 "CFBundlePackageType": .string(packageType), "CFBundleName": .string(executable)]
        if let ats { root["NSAppTransportSecurity"] = .dictionary(ats) }
        root.merge(extra) { _, new in new }
        // Written by Foundation, not by atsprobe's own writer: the app tests then read a plist
        // from an independent implementation, as a real app's would be.
        let data = try! PropertyListSerialization.data(fromPropertyList: foundationObject(.dictionary(root)),
                                                       format: binary ? .binary : .xml, options: 0)
        return [UInt8](data)
    }

    /// The value as Foundation's property-list objects (NSNumber keeps integer, real and boolean apart).
    static func foundationObject(_ value: PropertyListValue) -> Any {
        switch value {
        case .dictionary(let d): d.mapValues(foundationObject)
        case .array(let a): a.map(foundationObject)
        case .string(let s): s
        case .integer(let i): NSNumber(value: i)
        case .real(let r): NSNumber(value: r)
        case .boolean(let b): NSNumber(value: b)
        case .date(let d): d
        case .data(let d): d
        }
    }

    /// `size` pseudo-random bytes (fixed seed: the same every run) with each string planted as a
    /// C string at spread-out offsets, as a compiler would leave string literals in a binary.
    package static func executable(strings: [String], size: Int = 16 * 1024, seed: UInt64 = 0x5EED) -> [UInt8] {
        var state = seed
        var bytes = (0..<size).map { _ -> UInt8 in
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return UInt8(truncatingIfNeeded: z ^ (z >> 31))
        }
        let step = max(1, size / (strings.count + 1))
        for (i, string) in strings.enumerated() {
            let planted = [0] + Array(string.utf8) + [0]
            let at = min(step * (i + 1), size - planted.count)
            bytes.replaceSubrange(at..<(at + planted.count), with: planted)
        }
        return bytes
    }

    /// Every file and link under "Payload/NAME.app/", as an App Store .ipa is laid out; `more`
    /// adds entries of its own (hostile ones) before the archive is finished.
    package func ipa(method: ZipWriter.Method = .deflate, more: (inout ZipWriter) -> Void = { _ in }) -> [UInt8] {
        var zip = ZipWriter()
        zip.addDirectory("Payload/\(name).app")
        for path in files.keys.sorted() { zip.add("Payload/\(name).app/\(path)", files[path]!, method: method) }
        for path in symlinks.keys.sorted() { zip.addSymlink("Payload/\(name).app/\(path)", to: symlinks[path]!) }
        more(&zip)
        return zip.finished()
    }

    /// Writes NAME.app under `directory`; returns its path.
    @discardableResult
    package func writeApp(in directory: String) throws -> String {
        let root = directory + "/" + name + ".app"
        let manager = FileManager.default
        try manager.createDirectory(atPath: root, withIntermediateDirectories: true)
        for (path, bytes) in files {
            let full = root + "/" + path
            try manager.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: full))
        }
        for (path, target) in symlinks {
            let full = root + "/" + path
            try manager.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try manager.createSymbolicLink(atPath: full, withDestinationPath: target)
        }
        return root
    }

    /// The app the tests share: a main app and a share extension with dictionaries of their own,
    /// a framework, planted hosts in each executable and resource, and noise to be filtered.
    /// `mainATS` and `extensionATS` are the NSAppTransportSecurity dictionaries.
    package static func demo(mainATS: [String: PropertyListValue]?, extensionATS: [String: PropertyListValue]?,
                            mainHosts: [String], extensionHosts: [String], frameworkHosts: [String] = [],
                            resourceJSON: String? = nil, noise: [String] = AppFixture.noise) -> AppFixture {
        var app = AppFixture()
        app.files["Info.plist"] = infoPlist(identifier: "test.atsprobe.demo", executable: "Demo", ats: mainATS)
        app.files["Demo"] = executable(strings: mainHosts + noise)
        // Binary, as Xcode writes it into a built product; the app's own is XML.
        app.files["PlugIns/Share.appex/Info.plist"] = infoPlist(identifier: "test.atsprobe.demo.share", executable: "Share",
                                                                  packageType: "XPC!", ats: extensionATS, binary: true)
        app.files["PlugIns/Share.appex/Share"] = executable(strings: extensionHosts, seed: 7)
        app.files["Frameworks/Net.framework/Info.plist"] = infoPlist(identifier: "test.atsprobe.net", executable: "Net",
                                                                       packageType: "FMWK", ats: nil)
        app.files["Frameworks/Net.framework/Net"] = executable(strings: frameworkHosts, seed: 9)
        app.files["_CodeSignature/CodeResources"] = Array("<plist><string>https://signing.planted.test/</string></plist>".utf8)
        if let resourceJSON { app.files["config.json"] = Array(resourceJSON.utf8) }
        app.files["Base.lproj/Main.storyboardc/Info.plist"] = Array("<plist version=\"1.0\"><dict/></plist>".utf8)
        return app
    }

    /// Strings every real app carries that are not hosts it loads.
    package static let noise = [
        "http://www.apple.com/DTDs/PropertyList-1.0.dtd", "http://www.w3.org/2001/XMLSchema-instance",
        "https://developer.apple.com/documentation/", "https://www.example.com/sample",
        "http://www.apache.org/licenses/LICENSE-2.0", "com.apple.security.application-groups", "UIKit.framework",
        "Demo.app", "NSString.h", "https://%@/api/%@", "user@mail.planted.test",
    ]
}
