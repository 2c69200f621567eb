import ATSApp
import ATSAppFixtures
import Foundation
import Testing
import TestSupport

/// The zip reader's entry names, fuzzed (docs/robustness.md, "Fuzzing"; issue 24 item 6): names
/// mutated from a seed corpus (traversal, backslashes, NUL, deep and long names, links) are put
/// in an app's archive, which is then read whole. Reading either refuses it with one line, or
/// every entry it keeps is inside the archive and within the bounds (64 levels, 1,024 bytes).
/// Bounded by `FuzzRun` as the other fuzz targets are (scripts/fuzz sets longer bounds).
@Suite struct ZipNameFuzzTests {
    /// 250 archives in the default run (each is written and read whole: about 40 ms apiece on
    /// the shared machine); scripts/fuzz runs as many as it is told.
    static let run = FuzzRun("zip entry names", defaultIterations: 250, environment: ProcessInfo.processInfo.environment)

    static let corpus = [
        "Payload/Demo.app/Info.plist", "Payload/Demo.app/Frameworks/K.framework/Info.plist", "Payload/Demo.app/res/a.json",
        "Payload/Demo.app/../../x", "Payload\\Demo.app\\y.txt", "Payload/Demo.app/" + Array(repeating: "d", count: 60).joined(separator: "/"),
        "Payload/Demo.app/" + String(repeating: "n", count: 1000), "Payload/Demo.app/link", "Payload/Other.app/Info.plist",
    ]
    /// Bytes that matter to a path: separators, dot segments, NUL, a long component, broken UTF-8.
    static let words: [[UInt8]] = [
        Array("/".utf8), Array("\\".utf8), Array("..".utf8), Array("./".utf8), Array("//".utf8), [0], [0xFF], [0xC2, 0x9B],
        Array(String(repeating: "a/", count: 40).utf8), Array(String(repeating: "x", count: 300).utf8), Array(".app/".utf8),
        Array(".framework/".utf8), Array("%2e%2e/".utf8), [0xE2, 0x80, 0xAE],
    ]

    static func mutate(_ name: [UInt8], _ random: inout SeededRandom) -> [UInt8] {
        var bytes = name
        for _ in 0..<(1 + Int(random.next() % 3)) {
            let position = Int(random.next() % UInt64(bytes.count + 1))
            switch random.next() % 4 {
            case 0 where !bytes.isEmpty: bytes[min(position, bytes.count - 1)] = UInt8(truncatingIfNeeded: random.next())
            case 1: bytes = Array(bytes.prefix(position))
            case 2: bytes.insert(contentsOf: words[Int(random.next() % UInt64(words.count))], at: position)
            default:
                let word = words[Int(random.next() % UInt64(words.count))]
                for _ in 0..<(1 + Int(random.next() % 30)) { bytes.insert(contentsOf: word, at: min(position, bytes.count)) }
            }
        }
        return Array(bytes.prefix(65_535))
    }

    /// CPU-bound for seconds: run on a thread of its own, not on one of Swift's few cooperative
    /// threads, which the probe tests running alongside need to meet their deadlines.
    @Test func mutatedNamesAreRefusedOrKeptWithinBounds() async throws {
        let (archives, refused, problems) = try await offCooperativePool { try Self.fuzz() }
        #expect(problems.isEmpty, "\(problems.count) problems, the first: \(problems.prefix(5))")
        #expect(refused > 0 && refused < archives, "\(refused) of \(archives) refused")
    }

    /// How many archives were read and refused, and what broke a promise (empty when nothing did).
    static func fuzz() throws -> (archives: Int, refused: Int, problems: [String]) {
        var problems: [String] = []
        let directory = try TemporaryDirectory(prefix: "atsprobe-zipfuzz")
        let path = directory.path("fuzz.ipa")
        let plist = AppFixture.infoPlist(identifier: "fuzz.demo", executable: "Demo", ats: nil)
        var random = Self.run.random(salt: 11)
        var refused = 0, index = 0
        while Self.run.allows(index) {
            defer { index += 1 }
            var zip = ZipWriter()
            zip.add("Payload/Demo.app/Info.plist", plist)
            for offset in 0..<(1 + Int(random.next() % 3)) {
                let name = String(decoding: Self.mutate(Array(Self.corpus[(index + offset) % Self.corpus.count].utf8), &random), as: UTF8.self)
                switch random.next() % 4 {
                case 0: zip.addSymlink(name, to: "Info.plist")
                case 1: zip.addDirectory(name)
                default: zip.add(name, Array("https://fuzz.planted.test/".utf8), method: .stored)
                }
            }
            try Data(zip.finished()).write(to: URL(fileURLWithPath: path))
            do {
                let archive = try ZipArchive(path: path)
                for entry in archive.entries {
                    let parts = entry.path.split(separator: "/", omittingEmptySubsequences: false)
                    if entry.path.isEmpty || entry.path.hasPrefix("/") || entry.path.contains("\0") || entry.path.contains("\\")
                        || parts.contains("..") || parts.contains("") || parts.count > 64 || entry.path.utf8.count > 1024 {
                        problems.append("kept \(entry.path.debugDescription): \(parts.count) levels, \(entry.path.utf8.count) bytes")
                    }
                }
                _ = try AppScan.inventory(path: path)
            } catch {
                refused += 1
                if error.description.contains("\n") || error.problem.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
                    problems.append("raw control in \(error.problem.debugDescription)")
                }
            }
        }
        Self.run.report(index, detail: "\(refused) refused, \(problems.count) problems")
        return (index, refused, problems)
    }
}
