import ATSFiles
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport
import TLSFacts
#if canImport(Glibc)
import Glibc
#endif

/// `atsprobe report`'s input: files atsprobe wrote (audit's JSON Lines, or diagnose's JSON
/// document or array), `-` for standard input, or directories of shards, read through
/// FileStream's bounded reader and decoded by ATSReport (`ReportReader`).
public enum ReportInput {
    /// 1 GiB in all: about 30,000 audited targets at 36 KB each.
    package static let fileLimit = 1 << 30

    /// One file's records in the file's order. Bad input is an InputError naming the file and line.
    public static func read(_ path: String, allowEmpty: Bool = false) throws -> [AuditRecord] {
        let bytes = try FileStream.readAll(path, limit: fileLimit)
        do {
            return try ReportReader.records(from: bytes, name: name(path), allowEmpty: allowEmpty)
        } catch {
            throw InputError(.badContents, error.message)
        }
    }

    /// Every argument's records as one run: a directory stands for its `.jsonl` and `.json`
    /// files in name order. Several files (audit's shards) merge in input order, and a target
    /// two of them hold is bad input (ReportReader.merge).
    public static func read(_ paths: [String]) throws -> (records: [AuditRecord], merged: Bool) {
        let files = try paths.flatMap(expand)
        if files.count == 1 { return (try read(files[0]), false) }
        var read: [(name: String, records: [AuditRecord])] = []
        for file in files {
            let records = try self.read(file, allowEmpty: true)
            read.append((name(file), records))
        }
        do {
            return (try ReportReader.merge(read), true)
        } catch {
            throw InputError(.badContents, error.message)
        }
    }

    /// A directory's shard files, sorted by name; any other path as it is.
    package static func expand(_ path: String) throws -> [String] {
        var info = stat()
        guard path != "-", stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return [path] }
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw InputError(.fileAccess, "\(name(path)): cannot list the directory")
        }
        let shards = entries.filter { ($0.hasSuffix(".jsonl") || $0.hasSuffix(".json")) && !$0.hasPrefix(".") }.sorted()
        guard !shards.isEmpty else { throw InputError(.badContents, "\(name(path)) holds no .jsonl or .json files") }
        return shards.map { path.hasSuffix("/") ? path + $0 : path + "/" + $0 }
    }

    package static func name(_ path: String) -> String { "'\(UntrustedText.escape(path, limit: 400))'" }
}
