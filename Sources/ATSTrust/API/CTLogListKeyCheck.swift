import ATSPolicy

extension CTLogList {
    /// The list, refused when a log's key does not hash to its ID: a log ID is the SHA-256 of
    /// the log's key (RFC 6962, section 3.2), so a mismatch is a broken list, whose SCT
    /// signatures would be checked against the wrong key. For a list read from a file
    /// (--ct-log-list, named by `file` in the error); logs are checked in ID order, and the first
    /// mismatch is named.
    public func checkingKeys(file: String) throws(CTLogListError) -> CTLogList {
        for (id, key) in keys.sorted(by: { $0.key < $1.key }) where CTLogKey.logID(ofKey: key) != id {
            let name = self[id]?.name ?? id
            throw CTLogListError(.keyMismatch, source: file, reason: "log '\(name)': key does not match log_id")
        }
        return self
    }
}
