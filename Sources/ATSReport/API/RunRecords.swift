import ATSFiles
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TextSupport

/// One run's records read to be compared (`audit --baseline OLD`, `report --diff OLD NEW`):
/// each side is matched to the other by the target's URL, or a bad line's text, never one for the
/// other (`AuditRecord.identity`, `BaselineComparison`), so a target held twice on one side is
/// refused, as the shard reader refuses a target two shards hold.
/// Neither the first nor the best of two records may stand in for the other: a line prepended to
/// a baseline would otherwise mask a real regression (issue 31). The error names the file(s),
/// the target and both lines.
public enum RunRecords {
    /// `paths` as `ReportInput.read` takes them (files, `-`, directories of shards), read as one
    /// run; a target named twice anywhere in it is bad input (exit 64).
    public static func read(_ paths: [String], allowEmpty: Bool = false) throws -> [AuditRecord] {
        let files = try paths.flatMap(ReportInput.expand)
        var read: [(name: String, records: [(line: Int?, record: AuditRecord)])] = []
        for file in files {
            let bytes = try FileStream.readAll(file, limit: ReportInput.fileLimit)
            let name = ReportInput.name(file)
            do {
                read.append((name, try ReportReader.numberedRecords(from: bytes, name: name, allowEmpty: allowEmpty || files.count > 1)))
            } catch {
                throw InputError(.badContents, error.message)
            }
        }
        do {
            try refuseDuplicates(read)
            if read.count == 1 { return read[0].records.map(\.record) }
            return try ReportReader.merge(read.map { ($0.name, $0.records.map(\.record)) })
        } catch {
            throw InputError(.badContents, error.message)
        }
    }

    /// What a comparison reads of one run (`report --diff OLD NEW`, `audit --baseline OLD`;
    /// `paths` as `read` takes them): each record cut to what the comparison reads
    /// (`BaselineComparison.Side`) as it is decoded, the first record's run, in input order. A
    /// JSON Lines file (full records, or a compact baseline: `CompactBaseline`) is read 1 MiB at
    /// a time, so memory grows with the number of targets, not with the file (20,000 targets:
    /// docs/reports.md, "Baselines"). Any other shape (a document, an array, standard input,
    /// several shards), or a line that is no record, is read by `read`, which says what is wrong.
    /// `allowEmpty`: an empty run is no targets (`report --diff`'s NEW after an emptied input:
    /// every baseline target absent, as `audit --baseline` of that input says).
    package static func sides(_ paths: [String], allowEmpty: Bool = false) throws -> (sides: [BaselineComparison.Side], run: RunInfo?) {
        let files = try paths.flatMap(ReportInput.expand)
        if files.count == 1, files[0] != "-", let streamed = try stream(files[0]) { return streamed }
        let records = try read(paths, allowEmpty: allowEmpty)
        return (records.map(BaselineComparison.Side.init), records.lazy.compactMap(\.run).first)
    }

    /// nil when the file is not JSON Lines records throughout (the caller reads it whole).
    static func stream(_ path: String) throws -> (sides: [BaselineComparison.Side], run: RunInfo?)? {
        let name = ReportInput.name(path)
        let descriptor: Int32
        do { descriptor = try BoundedFile.open(path, allowPipes: false) } catch { return nil }
        defer { close(descriptor) }
        let decoder = JSONDecoder.atsprobe()
        var sides: [BaselineComparison.Side] = []
        var run: RunInfo?
        var seen = Duplicates(file: name)
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        var lineNumber = 0, total = 0
        var compact = false
        // One line: false when it is no record (the whole-file reader then says why).
        func take(_ line: ArraySlice<UInt8>) throws -> Bool {
            lineNumber += 1
            guard line.contains(where: { ![0x20, 0x09, 0x0D].contains($0) }) else { return true }
            let side: BaselineComparison.Side
            if let kind = CompactBaseline.kind(of: line) {
                guard let decoded = try? CompactBaseline.decode(line, kind: kind, decoder: decoder) else {
                    throw InputError(.badContents, "\(name) line \(lineNumber): not a line of an atsprobe baseline (report --baseline-of)")
                }
                compact = true
                switch decoded {
                case .header(let header):
                    if run == nil { run = header }
                    return true
                case .target(let target): side = target
                }
            } else {
                guard !compact, let record = try? ReportReader.record(line: line, decoder: decoder, name: name, number: lineNumber) else { return false }
                side = BaselineComparison.Side(record)
                if run == nil { run = record.run }
            }
            try seen.add(side, recordLine: lineNumber)
            sides.append(side)
            return true
        }
        while true {
            let count = chunk.withUnsafeMutableBytes { readBytes(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { break }
            total += count
            if total > ReportInput.fileLimit { return nil }
            pending += chunk[..<count]
            var start = pending.startIndex
            while let newline = pending[start...].firstIndex(of: 0x0A) {
                guard try take(pending[start..<newline]) else { return nil }
                start = newline + 1
            }
            pending.removeSubrange(..<start)
        }
        if !pending.isEmpty { guard try take(pending[...]) else { return nil } }
        guard !sides.isEmpty || compact else { return nil }
        return (sides, run)
    }

    /// A run's targets as they are read: the second side of one name is refused, naming the
    /// input lines that named it (the records' lines when they name none).
    package struct Duplicates {
        let file: String
        var first: [AuditRecord.Identity: (input: Int?, record: Int)] = [:]

        package init(file: String) { self.file = file }

        package mutating func add(_ side: BaselineComparison.Side, recordLine: Int) throws {
            if let earlier = first[side.identity] {
                throw InputError(.badContents, RunRecords.duplicate(file: file, name: side.name, first: (earlier.input, earlier.record),
                                                      second: (side.line, recordLine)))
            }
            first[side.identity] = (side.line, recordLine)
        }
    }

    /// "FILE: input lines 2 and 5 both name 'URL' (records 1 and 2): ...": one answer for
    /// `audit`, `report --diff` and `audit --baseline` (issue 42).
    static func duplicate(file: String, name: String, first: (input: Int?, record: Int), second: (input: Int?, record: Int)) -> String {
        let target = "'\(UntrustedText.escape(name, limit: 300))'"
        let lines: String
        if let a = first.input, let b = second.input, a != b {
            lines = "input lines \(a) and \(b) both name \(target) (records at lines \(first.record) and \(second.record))"
        } else {
            lines = "line \(first.record) and line \(second.record) both hold \(target)"
        }
        return "\(file) \(lines): a run audits each target once, so neither record can stand for it; remove one of the lines"
    }

    /// Throws when two records (in one file or two) name the same target, naming the input
    /// lines that named it (`duplicate`).
    package static func refuseDuplicates(_ files: [(name: String, records: [(line: Int?, record: AuditRecord)])]) throws(ReportInputError) {
        var first: [AuditRecord.Identity: (file: String, input: Int?, record: Int)] = [:]
        for file in files {
            for (index, numbered) in file.records.enumerated() {
                let side = BaselineComparison.Side(numbered.record)
                let place = numbered.line ?? index + 1
                if let earlier = first[side.identity] {
                    let name = earlier.file == file.name ? file.name : "\(earlier.file) and \(file.name)"
                    throw ReportInputError(.duplicateTarget, duplicate(file: name, name: side.name, first: (earlier.input, earlier.record),
                                                     second: (side.line, place)))
                }
                first[side.identity] = (file.name, side.line, place)
            }
        }
    }
}

private func readBytes(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.read(descriptor, buffer, count)
    #else
    Darwin.read(descriptor, buffer, count)
    #endif
}
