import Foundation
import Testing
import TLSFacts
import ATSAdvice
import ATSPolicy

@Suite struct ExceptionSuggestionCodingTests {
    @Test func suggestionJSONRoundTrip() throws {
        let suggestions: [ExceptionSuggestion] = [
            .none,
            .exception(domain: "example.com", DomainException(minimumTLSVersion: "TLSv1.1"),
                       rationale: [KeyEvidence(key: "NSExceptionMinimumTLSVersion", value: "TLSv1.1", observation: "server's highest protocol is TLS 1.1")]),
            .impossible(reason: "even Allow All Loads fails"),
        ]
        for suggestion in suggestions {
            let data = try JSONEncoder().encode(suggestion)
            #expect(try JSONDecoder().decode(ExceptionSuggestion.self, from: data) == suggestion)
        }
        #expect(String(decoding: try JSONEncoder().encode(ExceptionSuggestion.none), as: UTF8.self) == #"{"kind":"none"}"#)
    }
}
