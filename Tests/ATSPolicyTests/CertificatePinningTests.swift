import Foundation
import Testing
import TLSFacts
@testable import ATSPolicy

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

    @Test func noPinsOrEmptyListsPinNothing() {
        #expect(PinningPolicy.evaluate(chain: chain, pins: PinSet()).verdict == .noPins)
        #expect(PinningPolicy.evaluate(chain: chain, pins: PinSet(caIdentities: [], leafIdentities: [])).verdict == .noPins)
        #expect(PinningPolicy.evaluate(chain: [], pins: PinSet(leafIdentities: ["leafKey="])).verdict == .mismatched)
    }

    @Test func suggestedDictionaryPinsWhatWasServed() throws {
        let plist = PinningPolicy.suggestedPinnedDomains(host: "WWW.Example.com", chain: chain)
        let domains = try #require(plist["NSPinnedDomains"] as? [String: Any])
        #expect(Array(domains.keys) == ["www.example.com"])
        let entry = try #require(domains["www.example.com"] as? [String: Any])
        #expect(entry["NSIncludesSubdomains"] as? Bool == false)
        let cas = try #require(entry["NSPinnedCAIdentities"] as? [[String: String]])
        #expect(cas == [["SPKI-SHA256-BASE64": "intermediateKey="], ["SPKI-SHA256-BASE64": "rootKey="]])
        let leaf = try #require(entry["NSPinnedLeafIdentities"] as? [[String: String]])
        #expect(leaf == [["SPKI-SHA256-BASE64": "leafKey="]])
        // What it suggests passes its own judgement.
        let pins = PinSet(caIdentities: cas.compactMap { $0["SPKI-SHA256-BASE64"] }, leafIdentities: leaf.compactMap { $0["SPKI-SHA256-BASE64"] })
        #expect(PinningPolicy.evaluate(chain: chain, pins: pins).verdict == .matched)
        // A leaf alone: no CA key.
        let single = PinningPolicy.suggestedPinnedDomains(host: "a.example", chain: [F.leaf()])
        let singleEntry = (single["NSPinnedDomains"] as? [String: Any])?["a.example"] as? [String: Any]
        #expect(singleEntry?["NSPinnedCAIdentities"] == nil)
        #expect(singleEntry?["NSPinnedLeafIdentities"] != nil)
        // It is a valid property list.
        let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
        #expect(String(decoding: data, as: UTF8.self).contains("<key>SPKI-SHA256-BASE64</key>"))
    }
}
