#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PropertyList
import TextSupport
import TLSFacts

/// The version of every JSON document atsprobe writes; bumped on any incompatible change.
/// 2: every document and record carries `run` (tool, OpenSSL, rule set, trust store, CT list,
/// start) and `finishedAt`; server fixes carry `haproxy` and appear for "impossible" too; probe
/// documents carry `appleRules`, `certificateTransparency` and `failed`.
public let jsonSchemaVersion = 2

/// The schema versions `atsprobe report` reads back (docs/json-schema.md): 1 lacks `run`,
/// `finishedAt` and the fixes' `haproxy`, which are optional when reading for that reason.
public let readableSchemaVersions = 1...jsonSchemaVersion
