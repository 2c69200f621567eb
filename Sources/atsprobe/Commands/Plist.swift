import ArgumentParser

extension ATSProbeCommand {
    /// `atsprobe plist lint|check`: audit an app's Info.plist (issue #7).
    struct Plist: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "plist",
            abstract: "Audit an app's Info.plist: lint its ATS dictionary, or check it against the hosts it loads.",
            subcommands: [PlistLint.self, PlistCheck.self, PlistExplain.self]
        )
    }
}
