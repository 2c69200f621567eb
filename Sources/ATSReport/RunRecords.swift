import ATSFiles
import TextSupport

/// One run's records read to be compared (`audit --baseline OLD`, `report --diff OLD NEW`):
/// each side is matched to the other by the target's name (`BaselineComparison`), so a name
/// held twice on one side is refused, as the shard reader refuses a target two shards hold.
/// Neither the first nor the best of two records may stand in for the other: a line prepended to
/// a baseline would otherwise mask a real regression (issue 31). The error names the file(s),
/// the target and both lines.
package enum RunRecords {
    /// `paths` as `ReportInput.read` takes them (files, `-`, directories of shards), read as one
    /// run; a target named twice anywhere in it is bad input (exit 64).
    package static func read(_ paths: [String]) throws -> [AuditRecord] {
        let files = try paths.flatMap(ReportInput.expand)
        var read: [(name: String, records: [(line: Int?, record: AuditRecord)])] = []
        for file in files {
            let bytes = try FileStream.readAll(file, limit: ReportInput.fileLimit)
            let name = ReportInput.name(file)
            do {
                read.append((name, try ReportReader.numberedRecords(from: bytes, name: name, allowEmpty: files.count > 1)))
            } catch {
                throw InputError(error.message)
            }
        }
        do {
            try refuseDuplicates(read)
            if read.count == 1 { return read[0].records.map(\.record) }
            return try ReportReader.merge(read.map { ($0.name, $0.records.map(\.record)) })
        } catch {
            throw InputError(error.message)
        }
    }

    /// Throws when two records (in one file or two) name the same target.
    package static func refuseDuplicates(_ files: [(name: String, records: [(line: Int?, record: AuditRecord)])]) throws(ReportInputError) {
        var first: [String: (file: String, place: String)] = [:]
        for file in files {
            for (index, numbered) in file.records.enumerated() {
                let place = numbered.line.map { "line \($0)" } ?? "document \(index + 1)"
                if let earlier = first[numbered.record.name] {
                    let where_ = earlier.file == file.name ? "\(file.name) \(earlier.place) and \(place)"
                                                          : "\(earlier.file) \(earlier.place) and \(file.name) \(place)"
                    throw ReportInputError("\(where_) both hold '\(UntrustedText.escape(numbered.record.name, limit: 300))': "
                                           + "a run holds each target once, so neither record can stand for it; remove one")
                }
                first[numbered.record.name] = (file.name, place)
            }
        }
    }
}
