import Foundation

/// A program or Python module a test needs from outside the package (promtool, nginx, Chromium,
/// lxml ...). Away from CI a missing one lets the test say so and leave that check out; under CI
/// (`CI` set, as `.ci/run` runs) it is an error the test throws, so nothing passes by skipping a
/// validator the CI machine was meant to have (issue 40, item 0).
package enum RequiredTool {
    /// The interpreter every Python check runs: Debian's, the one `.ci/run` installs `python3-*`
    /// packages for. `python3` on PATH may be another (pyenv's here) that lacks them.
    package static let python = "/usr/bin/python3"

    /// A tool is missing where CI expected it.
    package struct Missing: Error, CustomStringConvertible {
        package let description: String
    }

    /// True under `.ci/run` (CI=true), where a missing tool fails.
    package static func underCI(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        guard let value = environment["CI"] else { return false }
        return !value.isEmpty && value != "false" && value != "0"
    }

    /// The first executable of `candidates`; nil (with a message naming what the test leaves
    /// out and how to install it) away from CI; throws `Missing` under CI.
    package static func executable(_ candidates: [String], install: String, for check: String,
                                  environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String? {
        if let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) { return found }
        return try missing("no \(candidates.joined(separator: " or "))", install: install, for: check, environment)
    }

    /// `python` when it imports `module`; nil away from CI, throws under CI otherwise.
    package static func pythonModule(_ module: String, install: String, for check: String,
                                    environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String? {
        if FileManager.default.isExecutableFile(atPath: python),
           let result = try? ChildProcess.runBlocking(python, ["-c", "import \(module)"], timeout: 120),
           result.status == 0, !result.timedOut {
            return python
        }
        return try missing("\(python) cannot import \(module)", install: install, for: check, environment)
    }

    /// Where the test needs a condition of the machine (root, a tmpfs mount) rather than a tool:
    /// true when it holds; false away from CI; throws under CI.
    package static func condition(_ holds: Bool, _ what: String, for check: String,
                                 environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Bool {
        if holds { return true }
        _ = try missing(what, install: nil, for: check, environment)
        return false
    }

    private static func missing(_ what: String, install: String?, for check: String, _ environment: [String: String]) throws -> String? {
        let hint = install.map { " (\($0))" } ?? ""
        if underCI(environment) {
            throw Missing(description: "\(check): \(what)\(hint); under CI every check runs (.ci/run installs it)")
        }
        FileHandle.standardError.write(Data("\(check): left out, \(what)\(hint)\n".utf8))
        return nil
    }
}
