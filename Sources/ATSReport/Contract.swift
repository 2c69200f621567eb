// ATSReport renders the JSON contract; the contract itself (Codable types, reader, schema) is
// ATSContract, a library that links no OpenSSL, c-ares or epoll. Re-exported, so a renderer's
// user sees one import.
@_exported import ATSContract
