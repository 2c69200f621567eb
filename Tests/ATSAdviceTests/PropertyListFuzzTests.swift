import Foundation
import Testing
import TestSupport
import PropertyList
import ATSAdvice
@testable import ATSPolicy
import ATSPolicyFixtures

/// Mangled property lists (bytes flipped, cut, spliced) must come back as a value or a
/// PropertyListError, never a trap: `plist lint` reads files users did not write by hand.
@Suite("Property-list reader under mangled input")
struct PropertyListFuzzTests {

    static let seeds: [[UInt8]] = {
        let root: [String: PropertyListValue] = [
            "NSAppTransportSecurity": ["NSAllowsArbitraryLoads": false, "NSExceptionDomains": [
                "example.com": ["NSIncludesSubdomains": true, "NSExceptionMinimumTLSVersion": "TLSv1.2",
                                "NSExceptionRequiresForwardSecrecy": false]]],
            "CFBundleIdentifier": "com.example.app", "Numbers": [1, 2.5, -3], "When": .date(Date(timeIntervalSince1970: 0)),
            "Bytes": .data(Data([0, 1, 2, 255])),
        ]
        return [PropertyListFile.Format.xml, .binary].map { Array((try? PropertyListFile.write(root, format: $0)) ?? Data()) }
    }()

    @Test(arguments: 0..<2)
    func mangledFilesNeverTrap(seedIndex: Int) {
        var random = SeededRandom(state: UInt64(seedIndex) &* 7919 &+ 1)
        let seed = Self.seeds[seedIndex]
        #expect(!seed.isEmpty)
        var outcomes = (parsed: 0, refused: 0)
        for _ in 0..<3000 {
            var bytes = seed
            switch random.next() % 4 {
            case 0:  // flip a few bytes
                for _ in 0..<(1 + Int(random.next() % 4)) { bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next()) }
            case 1:  // cut short
                bytes = Array(bytes.prefix(Int(random.next() % UInt64(bytes.count))))
            case 2:  // repeat a slice inside itself
                let start = Int(random.next() % UInt64(bytes.count)), length = Int(random.next() % 64)
                bytes.insert(contentsOf: bytes[start..<min(bytes.count, start + length)], at: Int(random.next() % UInt64(bytes.count)))
            default:  // overwrite with a byte that matters to the format
                let special: [UInt8] = [0x3C, 0x3E, 0x2F, 0x26, 0x00, 0xFF, 0xD1, 0xAF, 0x5F, 0x8F]
                bytes[Int(random.next() % UInt64(bytes.count))] = special[Int(random.next() % UInt64(special.count))]
            }
            do {
                let document = try PropertyListFile.parse(Data(bytes), path: "mangled.plist")
                _ = ATSLinter.lint(document)
                outcomes.parsed += 1
            } catch {
                outcomes.refused += 1
            }
        }
        // Surviving is the test (a trap ends the run); both outcomes show the mutations reach the parser.
        #expect(outcomes.parsed > 0 && outcomes.refused > 0, "\(outcomes)")
    }
}
