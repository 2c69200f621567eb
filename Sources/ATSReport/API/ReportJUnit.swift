import ATSContract
import TextSupport
import TLSFacts

/// `--format junit` (audit, diagnose, and `report` of their records): JUnit XML as Jenkins'
/// junit plugin and GitLab's test reports read it (docs/reports.md, "JUnit").
///
/// By default (`--junit-cases targets`) one `<testcase>` per target, named by its URL, in one
/// `<testsuite name="atsprobe">`: it fails (`<failure>`) only when the target's verdict fails the
/// gate (an exception is needed, or none helps), and errs (`<error>`) when nothing could be
/// judged (unreachable, timed out, a bad input line); nscurl's tests are listed in its
/// `<system-out>`. A server that passes with nscurl tests failing (TLS 1.2 only fails the TLS
/// 1.3 test, and ATS allows it) is a passing testcase, so CI's count of failures is the count of
/// targets that need work.
///
/// `--junit-cases tests` keeps nscurl's view: one `<testsuite>` per target (its URL the suite's
/// name, its wall time the suite's time) and one `<testcase>` per nscurl test, named by the
/// test's title; a failing test carries `<failure message type>` with the first reason as the
/// message, its class (FailureReason.code) as the type, and every reason and Apple's error as
/// the text. A target with no result (timeout) or a bad input line is one testcase with
/// `<error>`: nothing was tested; an unreachable target's tests are each an `<error>`
/// (`target/unreachable`), never failures.
///
/// The tests of one target share their handshakes (one per distinct offer), so a test has no
/// time of its own: each per-test testcase's time is 0 and the target's time is on its
/// testsuite, which Jenkins takes as the suite's duration when the attribute is present.
public enum ReportJUnit {
    /// `--junit-cases`: a testcase per target (the default) or per nscurl test.
    public enum Cases: String, Sendable, CaseIterable {
        case targets, tests
    }

    public static func render(_ report: Report, cases: Cases = .targets) -> String {
        if cases == .targets { return renderTargets(report) }
        var suites = ""
        var tests = 0, failures = 0, errors = 0, milliseconds = 0
        for record in report.records {
            let suite = self.suite(record)
            suites += suite.xml
            tests += suite.tests
            failures += suite.failures
            errors += suite.errors
            milliseconds += suite.milliseconds
        }
        return document(suites, tests: tests, failures: failures, errors: errors, milliseconds: milliseconds)
    }

    static func document(_ suites: String, tests: Int, failures: Int, errors: Int, milliseconds: Int) -> String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            + "<testsuites name=\"atsprobe\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"\(errors)\" time=\"\(seconds(milliseconds))\">\n"
            + suites
            + "</testsuites>\n"
    }

    /// One outcome element (`failure` or `error`) inside a testcase.
    struct Outcome {
        var tag: String, message: String, type: String, text: String
    }

    /// One `<testcase>`: its outcome, if any, then `<system-out>` (the schema's order).
    static func testcase(name: String, classname: String, milliseconds: Int, outcome: Outcome?, systemOut: String?) -> String {
        var xml = "    <testcase name=\"\(ReportEscaping.xml(name, limit: 1000))\" classname=\"\(ReportEscaping.xml(classname, limit: 1000))\" time=\"\(seconds(milliseconds))\""
        guard outcome != nil || systemOut != nil else { return xml + "/>\n" }
        xml += ">\n"
        if let outcome {
            xml += "      <\(outcome.tag) message=\"\(ReportEscaping.xml(outcome.message, limit: 1000))\" type=\"\(ReportEscaping.xml(outcome.type, limit: 200))\">"
                + ReportEscaping.xml(outcome.text, limit: 8000, keepingLines: true) + "</\(outcome.tag)>\n"
        }
        if let systemOut { xml += "      <system-out>" + ReportEscaping.xml(systemOut, limit: 16_000, keepingLines: true) + "</system-out>\n" }
        return xml + "    </testcase>\n"
    }

    /// The default: a testcase per target, failing as its verdict fails the gate.
    static func renderTargets(_ report: Report) -> String {
        var cases = ""
        var failures = 0, errors = 0, milliseconds = 0, forecasts = 0
        for record in report.records {
            let time = record.document.map { wholeMilliseconds($0.wallMilliseconds) } ?? 0
            milliseconds += time
            let outcome = targetOutcome(record)
            if outcome?.tag == "failure" { failures += 1 }
            if outcome?.tag == "error" { errors += 1 }
            cases += testcase(name: record.name, classname: className(record), milliseconds: time, outcome: outcome,
                              systemOut: nscurlTests(record))
            // --forecast: a passing testcase beside the target's, its output a WARNING before it fails.
            if let forecast = ReportForecast.junitTestcase(record, classname: className(record)) {
                cases += forecast
                forecasts += 1
            }
        }
        let count = report.records.count + forecasts
        let suite = "  <testsuite name=\"atsprobe\" tests=\"\(count)\" failures=\"\(failures)\" errors=\"\(errors)\" skipped=\"0\" time=\"\(seconds(milliseconds))\">\n"
            + cases + "  </testsuite>\n"
        return document(suite, tests: count, failures: failures, errors: errors, milliseconds: milliseconds)
    }

    /// A target's verdict as a testcase outcome: nil for a pass; a failure when an exception is
    /// needed or none helps; an error when nothing could be judged.
    static func targetOutcome(_ record: AuditRecord) -> Outcome? {
        let reason = record.reason ?? record.verdict.rawValue
        switch record.verdict {
        case .pass:
            return nil
        case .exception:
            let keys = record.exceptionKeys.map { "\($0.key)=\($0.value)" }.joined(separator: ", ")
            return Outcome(tag: "failure", message: "needs an exception: \(keys)", type: "verdict/exception",
                           text: "\(reason)\nexception: \(keys)" + otherReasons(record))
        case .noException:
            return Outcome(tag: "failure", message: "no exception helps: \(reason)", type: "verdict/noException", text: reason + otherReasons(record))
        case .unreachable:
            return Outcome(tag: "error", message: "unreachable: \(reason)", type: "target/unreachable", text: reason)
        case .timeout:
            return Outcome(tag: "error", message: reason, type: "target/timeout", text: reason)
        case .error:
            let place = record.line.map { "input line \($0)" } ?? "argument"
            return Outcome(tag: "error", message: reason, type: "input/error", text: "\(place): \(reason)")
        }
    }

    private static func otherReasons(_ record: AuditRecord) -> String {
        record.otherReasons.map { "\nalso: \($0)" }.joined()
    }

    /// nscurl's tests of a target, one per line ("PASS TLSv1.2", "FAIL TLSv1.3: reason").
    static func nscurlTests(_ record: AuditRecord) -> String? {
        guard !record.tests.isEmpty else { return nil }
        return "nscurl's tests:\n" + record.tests.map { test in
            test.verdict.passed ? "PASS \(test.title)" : "FAIL \(test.title)" + (test.verdict.reasons.first.map { ": \($0.message)" } ?? "")
        }.joined(separator: "\n")
    }

    /// Jenkins splits a classname at its last dot into package and class, so a host's dots
    /// would scatter one target over packages: the package is "atsprobe" and the class the
    /// target's URL with every character outside [A-Za-z0-9] as "_".
    package static func className(_ record: AuditRecord) -> String {
        "atsprobe." + classPart(record.name)
    }

    /// A name with every character outside [A-Za-z0-9] as "_" (at most 300).
    static func classPart(_ name: String) -> String {
        String(name.unicodeScalars.prefix(300).map { scalar -> Character in
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9": Character(scalar)
            default: "_"
            }
        })
    }

    private struct Suite {
        var xml: String
        var tests: Int, failures: Int, errors: Int, milliseconds: Int
    }

    private static func suite(_ record: AuditRecord) -> Suite {
        let name = ReportEscaping.xml(record.name, limit: 1000)
        let classname = ReportEscaping.xml(className(record), limit: 1000)
        var cases = ""
        var failures = 0, errors = 0
        func testcase(_ title: String, _ body: String?) {
            cases += "    <testcase name=\"\(ReportEscaping.xml(title, limit: 300))\" classname=\"\(classname)\" time=\"0.000\""
            cases += body.map { ">\n\($0)    </testcase>\n" } ?? "/>\n"
        }
        func element(_ tag: String, message: String, type: String, text: String) -> String {
            "      <\(tag) message=\"\(ReportEscaping.xml(message, limit: 1000))\" type=\"\(ReportEscaping.xml(type, limit: 200))\">"
                + ReportEscaping.xml(text, limit: 8000, keepingLines: true) + "</\(tag)>\n"
        }
        var milliseconds = 0
        switch record {
        case .result(let document, let verdict, _):
            milliseconds = wholeMilliseconds(document.wallMilliseconds)
            for test in document.tests {
                guard !test.verdict.passed else { testcase(test.title, nil); continue }
                // Nothing answered TLS: no test was judged, so each is an error, not a failure
                // (issue 42), as the per-target testcase errs.
                if verdict == .unreachable {
                    errors += 1
                    let reason = record.reason ?? "unreachable"
                    testcase(test.title, element("error", message: "unreachable: \(reason)", type: "target/unreachable", text: reason))
                    continue
                }
                failures += 1
                let first = test.verdict.reasons.first
                var lines = test.verdict.reasons.map { "reason (\($0.code)): \($0.message)" }
                if let error = test.verdict.error { lines.append("error: \(error.nscurlDescription)") }
                lines.append("dictionary: \(PlistText.of(test.dictionary))")
                testcase(test.title, element("failure", message: first?.message ?? "FAIL", type: first.map { ReportSARIF.loadRulePrefix + $0.code } ?? "load/failed",
                                             text: lines.joined(separator: "\n")))
            }
            if document.tests.isEmpty {
                // A document without nscurl's tests still has a verdict: one testcase for it.
                if verdict == .pass { testcase("verdict", nil) } else {
                    failures += 1
                    testcase("verdict", element("failure", message: record.reason ?? verdict.rawValue, type: "verdict/\(verdict.rawValue)", text: verdict.rawValue))
                }
            }
        case .timeout:
            errors += 1
            testcase("audit", element("error", message: record.reason ?? "timed out", type: "target/timeout", text: record.reason ?? ""))
        case .error(let message, _, _, _):
            errors += 1
            let place = record.line.map { "input line \($0)" } ?? "argument"
            testcase("input", element("error", message: message, type: "input/error", text: "\(place): \(message)"))
        }
        var count = max(record.tests.count, 1)
        if let forecast = ReportForecast.junitTestcase(record, classname: classname) {
            cases += forecast
            count += 1
        }
        let head = "  <testsuite name=\"\(name)\" tests=\"\(count)\" failures=\"\(failures)\" errors=\"\(errors)\" skipped=\"0\" time=\"\(seconds(milliseconds))\">\n"
        return Suite(xml: head + cases + "  </testsuite>\n", tests: count, failures: failures, errors: errors, milliseconds: milliseconds)
    }

    /// A record's wall time in whole milliseconds. The reader already bounds it (CheckedNumber:
    /// finite, 0 to 30 days), so the conversion and the suite's sum cannot trap; the guard stays
    /// for a record built by code.
    static func wholeMilliseconds(_ value: Double) -> Int {
        guard value.isFinite, value >= 0, value <= 2_592_000_000 else { return 0 }
        return Int(value.rounded())
    }

    /// Seconds with three decimals ("1.234"), as JUnit writers print them; no locale, no exponent.
    static func seconds(_ milliseconds: Int) -> String {
        let fraction = String(milliseconds % 1000)
        return "\(milliseconds / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}

extension ReportEscaping {
    /// XML 1.0 text or attribute value: control and bidi characters first become visible
    /// escapes (so the document stays well-formed: XML 1.0 cannot carry most C0 characters,
    /// even as references), as do U+FFFE and U+FFFF (not XML characters); then the five
    /// special characters. `keepingLines` keeps "\n" between lines (element text only).
    package static func xml(_ text: String, limit: Int, keepingLines: Bool = false) -> String {
        let lines = keepingLines ? text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) : [text]
        return lines.map { line in
            var clean = ""
            for scalar in UntrustedText.escape(line, limit: limit).unicodeScalars {
                if scalar.value == 0xFFFE || scalar.value == 0xFFFF {
                    clean += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
                } else {
                    clean.unicodeScalars.append(scalar)
                }
            }
            return HTMLText.escaped(clean)
        }.joined(separator: "\n")
    }
}
