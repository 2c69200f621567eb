import Testing
import ATSPolicy
import ATSProbe
import ATSTrust

/// The built-in log table's keys (CTLogKeys.swift) against its log IDs: a log ID is the SHA-256
/// of the log's key, so one wrong character in a transcribed key shows here.
@Suite("CT log keys")
struct CTLogKeyTests {
    @Test func everyLogInAppleListHasTheKeyItsIDNames() {
        let list = CTLogList.apple
        #expect(list.keys.count == list.logs.count)
        for log in list.logs {
            guard let key = list.keys[log.logID] else {
                Issue.record("no key for \(log.name)")
                continue
            }
            #expect(CTLogKey.logID(ofKey: key) == log.logID, "\(log.name)")
        }
    }
}
