/// The NSExceptionDomains entries Apple's code registers for every app before it reads the
/// app's own dictionary (Security `protocol/SecProtocolConfiguration.m`,
/// `sec_protocol_configuration_register_builtin_exceptions`, called by
/// `sec_protocol_configuration_create_with_builder` in `protocol/SecProtocolTypes.m` before
/// `sec_protocol_configuration_set_ats_overrides`). Each entry includes subdomains, allows
/// insecure HTTP loads (so TLS is not required) and does not require forward secrecy; the
/// minimum TLS version is the one listed. An app's own entry with the same key replaces the
/// built-in one (the override writes the same key of the same map; Apple's unit test
/// `SecProtocolConfigurationTest.m`, `testExceptionOverridesBuiltInException`), and the
/// NSIncludesSubdomains walk reaches built-in keys like the app's (`testBuiltInExceptions`:
/// `csd4.apple.com` is covered by `apple.com`).
///
/// Per release: the seven entries are the same in every Security tag from Security-59306
/// (iOS 13 / macOS 10.15) to Security-61901 (iOS 26 / macOS 26); the file does not exist
/// before. Apple's documentation does not list them, so the `documented` rule set has none.
public struct BuiltInException: Sendable, Hashable {
    public var domain: String
    public var minimumTLSVersion: String

    public var exception: DomainException {
        DomainException(includesSubdomains: true, allowsInsecureHTTPLoads: true, minimumTLSVersion: minimumTLSVersion,
                        requiresForwardSecrecy: false)
    }

    /// Security-59306 ... Security-61901, in Apple's order.
    public static let securityFramework: [BuiltInException] = [
        BuiltInException(domain: "apple.com", minimumTLSVersion: "TLSv1.2"),
        BuiltInException(domain: "ls.apple.com", minimumTLSVersion: "TLSv1.0"),
        BuiltInException(domain: "gs.apple.com", minimumTLSVersion: "TLSv1.0"),
        BuiltInException(domain: "geo.apple.com", minimumTLSVersion: "TLSv1.0"),
        BuiltInException(domain: "is.autonavi.com", minimumTLSVersion: "TLSv1.0"),
        BuiltInException(domain: "apple-mapkit.com", minimumTLSVersion: "TLSv1.0"),
        BuiltInException(domain: "setup.icloud.com", minimumTLSVersion: "TLSv1.2"),
    ]
}
