import Testing
import ATSPolicy
import PropertyList

@Suite("Locating the ATS dictionary")
struct PropertyListATSTests {
    @Test func locatesTheATSDictionary() {
        let withATS = PropertyListDocument(root: ["CFBundleName": "App", "NSAppTransportSecurity": ["NSAllowsArbitraryLoads": true]])
        #expect(!withATS.isBareATSDictionary)
        #expect(withATS.atsDictionary == ["NSAllowsArbitraryLoads": true])

        let without = PropertyListDocument(root: ["CFBundleName": "App"])
        #expect(!without.isBareATSDictionary)
        #expect(without.atsDictionary == nil)

        let bare = PropertyListDocument(root: ["NSAllowsLocalNetworking": true])
        #expect(bare.isBareATSDictionary)
        #expect(bare.atsDictionary?.keys.sorted() == ["NSAllowsLocalNetworking"])

        // A misspelled key is enough to recognise a fragment; a CFBundle key marks a real Info.plist.
        #expect(PropertyListDocument(root: ["NSAllowArbitraryLoads": true]).isBareATSDictionary)
        let infoPlist = PropertyListDocument(root: ["CFBundleIdentifier": "com.example.app", "NSAllowsArbitraryLoads": true])
        #expect(!infoPlist.isBareATSDictionary)
        #expect(infoPlist.atsDictionary == nil)
        // NSAppTransportSecurity of the wrong type is no dictionary.
        #expect(PropertyListDocument(root: ["NSAppTransportSecurity": "YES"]).atsDictionary == nil)
    }

    @Test func keyTypesMapToKinds() {
        #expect(PropertyListValue.Kind(ATSKey.allowsArbitraryLoads.valueType) == .boolean)
        #expect(PropertyListValue.Kind(ATSKey.exceptionDomains.valueType) == .dictionary)
        #expect(PropertyListValue.Kind(ATSKey.pinnedCAIdentities.valueType) == .array)
        #expect(PropertyListValue.Kind(ATSKey.exceptionMinimumTLSVersion.valueType) == .string)
    }
}
