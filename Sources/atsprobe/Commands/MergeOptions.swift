import ATSFiles
import ArgumentParser
import CommandRuns
import PropertyList

/// Options for suggested exception dictionaries: many targets merged into one dictionary, and
/// that dictionary merged into an app's Info.plist (docs/exceptions.md).
struct MergeOptions: ParsableArguments {
    @Option(name: .long, help: "Read more targets from FILE ('-' for standard input), one per line; '#' starts a comment.", completion: .file())
    var input: String?

    @Flag(name: .customLong("include-subdomains"),
          help: "With --format plist or --merge: one parent entry with NSIncludesSubdomains when every probed subdomain of it needs the same entry.")
    var includeSubdomains = false

    @Option(name: .long, help: "Merge the suggested exceptions into this Info.plist (XML or binary) and write the result to stdout or --output.", completion: .file())
    var merge: String?

    @Option(name: .customLong("merge-format"), help: "Encoding of the merged property list: xml or binary. Default: the input's.")
    var mergeFormat: MergeFormat?

    enum MergeFormat: String, ExpressibleByArgument, CaseIterable {
        case xml, binary
        var format: PropertyListFile.Format { self == .xml ? .xml : .binary }
    }

    /// The targets listed in --input, in order.
    func inputTargets() throws -> [String] {
        guard let input else { return [] }
        return try TargetList.read(input, option: "--input")
    }

    /// The Info.plist to merge into, read before any connection so a bad file costs nothing.
    func mergeDocument() throws -> PropertyListDocument? {
        guard let merge else { return nil }
        return try MergeRun.read(merge)
    }
}
