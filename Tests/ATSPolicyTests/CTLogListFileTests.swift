import Foundation
import Testing
@testable import ATSPolicy

/// --ct-log-list: Apple's current_log_list.json schema read into a CTLogList, and every way a
/// file can be wrong named in one line.
@Suite("CT log list file")
struct CTLogListFileTests {
    static func id(_ byte: UInt8) -> String { Data(repeating: byte, count: 32).base64EncodedString() }

    static let sample = """
    {"version": "512", "log_list_timestamp": "2026-11-01T00:00:00Z", "operators": [
      {"name": "Operator A", "email": ["a@example.com"], "logs": [
        {"description": "A 2026", "log_id": "\(id(1))", "key": "AA==", "url": "https://a/", "mmd": 86400,
         "state": {"usable": {"timestamp": "2024-05-06T07:08:09Z"}},
         "temporal_interval": {"start_inclusive": "2026-01-01T00:00:00Z", "end_exclusive": "2027-01-01T00:00:00Z"}},
        {"description": "A old", "log_id": "\(id(2))", "state": {"readonly": {"timestamp": "2023-01-31T23:59:59.999Z",
         "final_tree_head": {"sha256_root_hash": "x", "tree_size": 1}}}}
      ], "tiled_logs": [
        {"description": "A tiled", "log_id": "\(id(3))", "state": {"qualified": {"timestamp": "2026-02-03T00:00:00.123456Z"}}}
      ]},
      {"name": "Operator B", "logs": [
        {"description": "B retired", "log_id": "\(id(4))", "state": {"retired": {"timestamp": "2025-06-30T12:00:00Z"}}},
        {"description": "B pending", "log_id": "\(id(5))", "state": {"pending": {"timestamp": "2026-10-10T00:00:00Z"}}},
        {"description": "B rejected", "log_id": "\(id(6))", "state": {"rejected": {"timestamp": "2022-02-02T00:00:00Z"}}}
      ]}
    ]}
    """

    func parse(_ text: String) throws(CTLogListError) -> CTLogList {
        try CTLogList(appleLogListJSON: Data(text.utf8), source: "list.json")
    }

    @Test func readsEveryLogWithItsStateDayAndAPI() throws {
        let list = try parse(Self.sample)
        #expect(list.logs.count == 6)
        #expect(list.source == "list.json version 512 (6 logs)")
        let a = try #require(list[Self.id(1)])
        #expect(a == CTLog(logID: Self.id(1), name: "A 2026", operatorName: "Operator A", state: .usable,
                           stateSince: UTCDay.date(2024, 5, 6), api: .rfc6962))
        #expect(list[Self.id(2)]?.state == .readonly && list[Self.id(2)]?.stateSince == UTCDay.date(2023, 1, 31))
        #expect(list[Self.id(3)]?.api == .staticCTAPI && list[Self.id(3)]?.state == .qualified)
        #expect(list[Self.id(3)]?.stateSince == UTCDay.date(2026, 2, 3))
        #expect(list[Self.id(4)]?.state == .retired && list[Self.id(4)]?.operatorName == "Operator B")
        #expect(list[Self.id(5)]?.state == .pending)
        #expect(list[Self.id(6)]?.state == .rejected)
        // The states mean what they mean in the built-in table.
        #expect(a.isCurrentlyApproved(sctTimestamp: UTCDay.date(2025, 1, 1), at: UTCDay.date(2025, 1, 2)))
        #expect(list[Self.id(5)]?.isCurrentlyApproved(sctTimestamp: UTCDay.date(2026, 11, 1), at: UTCDay.date(2026, 11, 2)) == false)
    }

    @Test(arguments: [
        ("not json", "CT log list 'list.json': not a log list: not JSON"),
        ("{}", "CT log list 'list.json': not a log list: missing operators"),
        (#"{"operators": []}"#, "CT log list 'list.json': no logs"),
        (#"{"operators": [{"name": "X", "logs": [{"log_id": "AAAA", "state": {"usable": {"timestamp": "2024-01-01T00:00:00Z"}}}]}]}"#,
         "CT log list 'list.json': log 'AAAA': log_id is not 32 bytes of base64"),
        (#"{"operators": [{"name": "X", "logs": [{"description": "L", "log_id": "\#(id(1))", "state": {}}]}]}"#,
         "CT log list 'list.json': log 'L': no state"),
        (#"{"operators": [{"name": "X", "logs": [{"description": "L", "log_id": "\#(id(1))", "state": {"usable": {"timestamp": "2024-01-01T00:00:00Z"}, "retired": {"timestamp": "2025-01-01T00:00:00Z"}}}]}]}"#,
         "CT log list 'list.json': log 'L': more than one state"),
        (#"{"operators": [{"name": "X", "logs": [{"description": "L", "log_id": "\#(id(1))", "state": {"usable": {"timestamp": "last week"}}}]}]}"#,
         "CT log list 'list.json': log 'L': state timestamp 'last week' is not an RFC 3339 instant: expected a four-digit year"),
        // Issue 40: timestamps that name no instant, read as --at reads one (RequestedInstant).
        (#"{"operators": [{"name": "X", "logs": [{"description": "L", "log_id": "\#(id(1))", "state": {"usable": {"timestamp": "2024-02-30T00:00:00Z"}}}]}]}"#,
         "CT log list 'list.json': log 'L': state timestamp '2024-02-30T00:00:00Z' is not an RFC 3339 instant: February 2024 has 29 days, not 30"),
        (#"{"operators": [{"name": "X", "logs": [{"description": "L", "log_id": "\#(id(1))", "state": {"usable": {"timestamp": "2024-01-01T25:00:00Z"}}}]}]}"#,
         "CT log list 'list.json': log 'L': state timestamp '2024-01-01T25:00:00Z' is not an RFC 3339 instant: hour 25 does not exist (00-23)"),
        (#"{"operators": [{"name": "X", "logs": [{"description": "L", "log_id": "\#(id(1))", "state": {"usable": {"timestamp": "2024-01-01T00:00:00Zjunk"}}}]}]}"#,
         "CT log list 'list.json': log 'L': state timestamp '2024-01-01T00:00:00Zjunk' is not an RFC 3339 instant: unexpected text after the offset"),
        (#"{"operators": [{"name": "X", "logs": [{"description": "L", "log_id": "\#(id(1))", "state": {"usable": {"timestamp": "2024-01-01T00:00:00"}}}]}]}"#,
         "CT log list 'list.json': log 'L': state timestamp '2024-01-01T00:00:00' is not an RFC 3339 instant: a time needs 'Z' or an offset such as +01:00 (a local time names no single instant)"),
        // A log listed twice (here in two operators, two states) is not decided by the file's order.
        (#"{"operators": [{"name": "X", "logs": [{"description": "L", "log_id": "\#(id(1))", "state": {"usable": {"timestamp": "2024-01-01T00:00:00Z"}}}]}, "#
            + #"{"name": "Y", "tiled_logs": [{"description": "M", "log_id": "\#(id(1))", "state": {"retired": {"timestamp": "2024-01-01T00:00:00Z"}}}]}]}"#,
         "CT log list 'list.json': log_id \(id(1)) is listed twice ('L' and 'M')"),
        (#"{"operators": [{"name": "X", "logs": [{"description": "L", "log_id": 7, "state": {}}]}]}"#,
         "CT log list 'list.json': not a log list: wrong type at operators[0].logs[0].log_id"),
    ])
    func badFilesAreOneLine(text: String, message: String) {
        do {
            _ = try parse(text)
            Issue.record("should fail: \(text)")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func untrustedNamesAreEscaped() throws {
        let text = #"{"operators": [{"name": "Op\u001b[31m", "logs": [{"description": "Log\nTwo", "log_id": "\#(Self.id(9))", "state": {"usable": {"timestamp": "2024-01-01T00:00:00Z"}}}]}]}"#
        let log = try #require(try parse(text)[Self.id(9)])
        #expect(log.name == "Log\\x0ATwo")
        #expect(!log.operatorName.contains("\u{1B}"))
    }
}
