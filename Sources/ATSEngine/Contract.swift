// A target's verdict (`AuditVerdict`) is the JSON contract's (ATSContract); the engine derives it
// from a run's report (AuditVerdict.swift) and re-exports the contract for its users.
@_exported import ATSContract
