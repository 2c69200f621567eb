import ATSCommandOutputs
import ATSAdvice
import ATSEngine
import ATSFiles
import ATSPolicy
import ATSProbe
import ATSReport
import PropertyList
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport
import TLSFacts

/// Reading the files `plist` commands take; every problem is one line naming the file (exit 64).
package enum PlistInput {
    package static func document(_ path: String) throws -> PropertyListDocument {
        try read(path).document
    }

    /// The document and the bytes it was parsed from (read once: the file may be a pipe), for
    /// the formats that locate findings in the file (`PlistLocations`).
    package static func read(_ path: String) throws -> (document: PropertyListDocument, bytes: Data) {
        do {
            let bytes = try PropertyListFile.readBounded(path: path, maximumSize: PropertyListFile.defaultMaximumSize)
            return (try PropertyListFile.parse(bytes, path: path), bytes)
        } catch {
            throw InputError(InputError.Code(error), error.description)
        }
    }
}

/// `atsprobe plist check FILE TARGET...` once its options are parsed: each target loaded under
/// the app's dictionary, then the dictionary tightened to what the loads need.
package enum PlistCheckRun {
    package struct Outcome {
        package let checks: [PlistTargetCheck]
        package let tightening: TighteningReport
        /// The tightened NSAppTransportSecurity dictionary, as a property list (`--format plist`).
        package let tightenedPlist: String

        /// 2 when a host is unreachable, else 1 when a load fails or something can be tightened.
        package var status: ExitStatus {
            if checks.contains(where: \.unreachable) { return .unreachable }
            if checks.contains(where: { !$0.passes }) || !tightening.isTight { return .findings }
            return .clear
        }

        /// The document every format renders (the engine's PlistCheckJSON), with the run.
        package func document(file: String, document: PropertyListDocument, ruleSet: RuleSet, run: RunInfo) -> PlistCheckJSON {
            var report = PlistCheckJSON(file: file, document: document, ruleSet: ruleSet, checks: checks, tightening: tightening,
                                        tightenedPlist: tightenedPlist)
            report.run = run
            return report
        }
    }

    /// A few targets at a time, in the order given (AuditLimits.inOrder).
    package static func run(_ document: PropertyListDocument, targets: [Target], runner: DiagnosticsRunner, ruleSet: RuleSet) async throws -> Outcome {
        let ats = document.atsDictionary ?? [:]
        let scheduler = AuditScheduler(limits: .inOrder(),
                                       work: PlistCheckWork(configuration: ATSConfiguration(propertyList: ats), runner: runner))
        let checks = try TargetRunError.reports(of: await scheduler.runInOrder(targets), targets: targets)
        let tightening = ExceptionTightener.tighten(ats, needs: checks.map(\.need), ruleSet: ruleSet)
        return Outcome(checks: checks, tightening: tightening, tightenedPlist: try ExceptionPlist.tightened(tightening.tightened))
    }
}

/// `atsprobe plist explain FILE URL...` once its options are parsed: what ATS requires of each
/// target under the app's dictionary, offline (`PolicyExplanation`, over the same
/// `EffectivePolicy` the loads use).
package enum PlistExplainRun {
    /// The targets and `--direct` addresses as given; one line naming a bad one (exit 64).
    /// `ruleSet` is asked after them (its notice, or its error, comes after theirs).
    package static func explain(_ document: PropertyListDocument, urls: [String], direct: [String],
                                ruleSet: () throws -> RuleSet) throws -> (ruleSet: RuleSet, explanations: [PolicyExplanation]) {
        var targets: [Target] = []
        for text in urls {
            let target: Target
            do { target = try Target(parsing: text) } catch { throw InputError(.badArgument, String(describing: error)) }
            targets.append(target)
        }
        let directAddresses = try direct.map { text in
            var trimmed = Substring(text)
            if trimmed.hasPrefix("["), trimmed.hasSuffix("]") { trimmed = trimmed.dropFirst().dropLast() }
            guard let address = IPAddress(String(trimmed)) else {
                throw InputError(.badArgument, "--direct '\(UntrustedText.escape(text, limit: 100))' is not an IP address")
            }
            return address
        }
        let ruleSet = try ruleSet()
        let configuration = ATSConfiguration(propertyList: document.atsDictionary ?? [:])
        // Offline: the context has the rule set and no runtime.
        let context = try RunContext(ruleSet: ruleSet, runtime: nil)
        return (ruleSet, targets.map {
            PolicyExplanation(target: $0, configuration: configuration, context: context, directAddresses: directAddresses)
        })
    }
}

/// `atsprobe pins URL|HOST` once its options are parsed: the --plist file read before any
/// connection, then one handshake with the widest offer.
package enum PinsRun {
    /// Reading the --plist file into the ATS configuration whose NSPinnedDomains are checked.
    package static func configuration(path: String) throws -> ATSConfiguration {
        let document: PropertyListDocument
        do {
            document = try PropertyListFile.read(path: path)
        } catch {
            throw InputError(InputError.Code(error), error.description)
        }
        guard let ats = document.atsDictionary else {
            throw InputError(.badContents, "\(UntrustedText.escape(path, limit: 300)): no NSAppTransportSecurity dictionary")
        }
        guard ats[ATSKey.pinnedDomains.name]?.kind == .dictionary else {
            throw InputError(.badContents, "\(UntrustedText.escape(path, limit: 300)): no NSPinnedDomains dictionary in NSAppTransportSecurity")
        }
        return ATSConfiguration(propertyList: ats)
    }

    /// Pins' one handshake (the run's widest offer) and the plist's pins judged against its chain.
    package static func probe(_ target: Target, run: Run, configuration: ATSConfiguration?) async -> PinsReport {
        PinsReport(target: target, result: await run.handshake(target), configuration: configuration)
    }
}
