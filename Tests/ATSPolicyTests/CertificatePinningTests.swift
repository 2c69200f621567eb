import Foundation
import Testing
import TLSFacts
@testable import ATSPolicy
import PropertyList

@Suite("NSPinnedDomains judgement")
struct CertificatePinningTests {
    typealias F = CertificateFixture
    let chain = F.chain(F.leaf(spki: "leafKey="), intermediate: F.ca(spki: "intermediateKey="), root: F.root(spki: "rootKey="))

    @Test func caPinMatchesAnyServedCA() {
        let intermediate = PinningPolicy.evaluate(chain: chain, pins: PinSet(caIdentities: ["other=", "intermediateKey="]))
        #expect(intermediate.verdict == .matched)
        #expect(intermediate.matchedCAIndices == [1])
        #expect(intermediate.caPinMatched == true)
        #expect(intermediate.leafPinMatched == nil)
        let root = PinningPolicy.evaluate(chain: chain, pins: PinSet(caIdentities: ["rootKey="]))
        #expect(root.matchedCAIndices == [2])
        #expect(root.isSatisfied)
    }

    @Test func caPinDoesNotMatchTheLeaf() {
        let result = PinningPolicy.evaluate(chain: chain, pins: PinSet(caIdentities: ["leafKey="]))
        #expect(result.verdict == .mismatched)
        #expect(result.reason.contains("NSPinnedCAIdentities"))
    }

    @Test func leafPinMatchesOnlyTheLeaf() {
        #expect(PinningPolicy.evaluate(chain: chain, pins: PinSet(leafIdentities: ["leafKey="])).verdict == .matched)
        #expect(PinningPolicy.evaluate(chain: chain, pins: PinSet(leafIdentities: ["intermediateKey="])).verdict == .mismatched)
    }

    @Test func bothKindsMustMatchWhenBothArePresent() {
        let both = PinningPolicy.evaluate(chain: chain, pins: PinSet(caIdentities: ["rootKey="], leafIdentities: ["leafKey="]))
        #expect(both.verdict == .matched)
        let leafWrong = PinningPolicy.evaluate(chain: chain, pins: PinSet(caIdentities: ["rootKey="], leafIdentities: ["stale="]))
        #expect(leafWrong.verdict == .mismatched)
        #expect(leafWrong.caPinMatched == true)
        #expect(leafWrong.leafPinMatched == false)
        let caWrong = PinningPolicy.evaluate(chain: chain, pins: PinSet(caIdentities: ["stale="], leafIdentities: ["leafKey="]))
        #expect(caWrong.verdict == .mismatched)
    }

    /// Absent keys pin nothing; empty lists pin the domain to nothing, so every chain fails
    /// (SecPolicy.c parseNSPinnedDomains returns an empty array; SecPolicyServer.c finds no match).
    @Test func noPinsPinNothingEmptyListsMatchNothing() {
        #expect(PinningPolicy.evaluate(chain: chain, pins: PinSet()).verdict == .noPins)
        #expect(PinningPolicy.evaluate(chain: chain, pins: PinSet(caIdentities: [], leafIdentities: [])).verdict == .mismatched)
        #expect(PinningPolicy.evaluate(chain: chain, pins: PinSet(caIdentities: [])).reason.contains("no readable identity"))
        #expect(PinningPolicy.evaluate(chain: [], pins: PinSet(leafIdentities: ["leafKey="])).verdict == .mismatched)
    }

    @Test func suggestedDictionaryPinsWhatWasServed() throws {
        let plist = PinningPolicy.suggestedPinnedDomains(host: "WWW.Example.com", chain: chain)
        #expect(plist == ["NSPinnedDomains": ["www.example.com": [
            "NSIncludesSubdomains": false,
            "NSPinnedCAIdentities": [["SPKI-SHA256-BASE64": "intermediateKey="], ["SPKI-SHA256-BASE64": "rootKey="]],
            "NSPinnedLeafIdentities": [["SPKI-SHA256-BASE64": "leafKey="]],
        ]]])
        // What it suggests passes its own judgement.
        let entry = try #require(plist["NSPinnedDomains"]?["www.example.com"]?.dictionaryValue)
        #expect(PinningPolicy.evaluate(chain: chain, pins: PinSet(propertyList: entry)).verdict == .matched)
        // A leaf alone: no CA key.
        let single = PinningPolicy.suggestedPinnedDomains(host: "a.example", chain: [F.leaf()])
        let singleEntry = single["NSPinnedDomains"]?["a.example"]
        #expect(singleEntry?["NSPinnedCAIdentities"] == nil)
        #expect(singleEntry?["NSPinnedLeafIdentities"] != nil)
        // It is a valid property list.
        let data = try PropertyListFile.write(plist, format: .xml)
        #expect(String(decoding: data, as: UTF8.self).contains("<key>SPKI-SHA256-BASE64</key>"))
    }
}
