/// `diagnose --rules all` for one target, as the engine hands it to the renderers (ATSEngine's
/// `RuleSetMatrixDocument+Engine.swift`): each rule set's diagnostics document, in the order the
/// runs were asked for, and the handshakes made for all of them together. Its JSON is
/// `RuleSetMatrixJSON`, which carries these documents whole.
package struct RuleSetMatrixDocument: Sendable {
    /// The target's URL.
    package var target: String
    package var handshakes: Int
    package var reports: [DiagnosticsJSON]

    package init(target: String, handshakes: Int, reports: [DiagnosticsJSON]) {
        self.target = target
        self.handshakes = handshakes
        self.reports = reports
    }
}
