import Foundation
import HeraldBench
import HeraldCrypto
import Testing

/// The re-registering scenario's requests: every one a new signed message (a new version), and
/// the warm-up and the run after it draw from one counter. That the node accepts each as the next
/// version of one of the subjects' registrations is checked against a node: docs/benchmarks.md.
@Suite struct StatusReRegisterScenarioTests {
    @Test func everyRequestIsANewRegistrationMessage() throws {
        let scenario = StatusReRegisterScenario(server: Secp256k1PrivateKey().publicKey, subjects: 3)
        // A warm-up's requests, then the run's, both from index 0.
        let bodies = (0..<4).map { scenario.request($0).body } + (0..<4).map { scenario.request($0).body }
        #expect(Set(bodies).count == 8, "no request repeats another")
        for body in bodies {
            let message = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
            #expect(message["payload"] != nil, "a Waku message: \(message.keys.sorted())")
        }
        #expect(scenario.request(0).path == "/waku/v1/messages")
    }
}
