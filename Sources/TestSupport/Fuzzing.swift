import Foundation

/// What every fuzz target shares (docs/robustness.md, "Fuzzing"): a seeded mutator over a fixed
/// corpus and the run's bound. In the suite a target runs `defaultIterations` mutants; scripts/fuzz
/// sets `ATSPROBE_FUZZ_ITERATIONS` (more mutants), `ATSPROBE_FUZZ_SEED` (another seed) and
/// `ATSPROBE_FUZZ_SECONDS` (run until that much wall time has passed instead of counting). The
/// mutants are the same sequence whatever the bound, so a failure at mutant N reproduces with the
/// same seed and any bound above N.
package struct FuzzRun: Sendable {
    package let name: String
    package let seed: UInt64
    /// Mutants at most: the suite's default, or `ATSPROBE_FUZZ_ITERATIONS`; unbounded when only
    /// `ATSPROBE_FUZZ_SECONDS` is given.
    package let iterations: Int
    /// Wall-clock seconds at most (`ATSPROBE_FUZZ_SECONDS`); nil in the suite.
    package let seconds: Double?
    private let start = ContinuousClock.now

    package init(_ name: String, defaultIterations: Int, environment: [String: String]) {
        self.name = name
        seed = environment["ATSPROBE_FUZZ_SEED"].flatMap(UInt64.init) ?? 15
        seconds = environment["ATSPROBE_FUZZ_SECONDS"].flatMap(Double.init).flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
        iterations = environment["ATSPROBE_FUZZ_ITERATIONS"].flatMap(Int.init).map { max(0, $0) }
            ?? (seconds == nil ? defaultIterations : Int.max)
    }

    /// A generator for one target: `salt` keeps targets that share a seed apart.
    package func random(salt: UInt64) -> SeededRandom { SeededRandom(state: seed &* 1_000_003 &+ salt) }

    package var elapsed: Double {
        let time = (ContinuousClock.now - start).components
        return Double(time.seconds) + Double(time.attoseconds) / 1e18
    }

    /// Whether mutant `index` (from 0) is within the bound.
    package func allows(_ index: Int) -> Bool {
        guard index < iterations else { return false }
        guard let seconds else { return true }
        // The clock is read every 64 mutants: cheap targets run hundreds of thousands a second.
        return index % 64 != 0 || elapsed < seconds
    }

    /// One line on standard error with what ran, for scripts/fuzz's record (the suite is quiet
    /// unless a bound was set from outside).
    package func report(_ mutants: Int, detail: String = "") {
        guard seconds != nil || iterations > 100_000 else { return }
        let line = "fuzz: \(name): \(mutants) mutants in \((elapsed * 10).rounded() / 10) s, seed \(seed)\(detail.isEmpty ? "" : ", " + detail)\n"
        FileHandle.standardError.write(Data(line.utf8))
    }
}

/// The byte-level mutator for text and binary formats: flips, cuts, dictionary insertions,
/// repeated slices and deletions.
package enum ByteMutator {
    /// Byte strings that matter to one format or another: line ends, NUL, markup, escapes, dot
    /// segments, C1 and bidi in UTF-8, a byte-order mark, broken UTF-8, a huge number.
    package static let dictionary: [[UInt8]] = [
        [0x0D, 0x0A], [0x0A], [0x00], [0x7F], Array("<!--".utf8), Array("-->".utf8), Array("<![CDATA[".utf8), Array("]]>".utf8),
        Array("</array>".utf8), Array("<array>".utf8), Array("../".utf8), Array("./".utf8), Array("//".utf8), Array("%".utf8),
        Array("%0d%0a".utf8), [0xC2, 0x9B], [0xE2, 0x80, 0xAE], [0xEF, 0xBB, 0xBF], [0xFF], [0xC0, 0x80], Array(":".utf8),
        Array("[".utf8), Array("]".utf8), Array("?".utf8), Array("#".utf8), Array("@".utf8), Array("\"".utf8), Array("{".utf8),
        Array("}".utf8), Array("99999999999999999999".utf8), Array(" ".utf8), Array("\t".utf8), Array("HTTP/1.1 ".utf8),
    ]

    /// One mutation of `seed`: one to three of flip, cut, insert a word (from `words`), repeat a
    /// slice, delete a byte.
    package static func mutate(_ seed: [UInt8], words: [[UInt8]] = dictionary, _ random: inout SeededRandom) -> [UInt8] {
        var bytes = seed
        for _ in 0..<(1 + Int(random.next() % 3)) {
            let position = bytes.isEmpty ? 0 : Int(random.next() % UInt64(bytes.count + 1))
            switch random.next() % 5 {
            case 0 where !bytes.isEmpty:
                bytes[min(position, bytes.count - 1)] = UInt8(truncatingIfNeeded: random.next())
            case 1:
                bytes = Array(bytes.prefix(position))
            case 2:
                bytes.insert(contentsOf: words[Int(random.next() % UInt64(words.count))], at: position)
            case 3 where !bytes.isEmpty:
                let start = Int(random.next() % UInt64(bytes.count)), length = Int(random.next() % 128)
                let slice = bytes[start..<min(bytes.count, start + length)]
                for _ in 0..<(1 + Int(random.next() % 8)) { bytes.insert(contentsOf: slice, at: min(position, bytes.count)) }
            default:
                if !bytes.isEmpty { bytes.remove(at: min(position, bytes.count - 1)) }
            }
        }
        return bytes
    }
}
