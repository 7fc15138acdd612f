import HeraldBench
import Testing

/// The relay benchmark's requests are shaped as Mastodon sends them.
@Suite struct WebPushRelayScenarioTests {
    @Test func scenarioSendsMastodonShapedRequests() throws {
        let scenario = try WebPushRelayScenario(devices: 3, encoding: .aesgcm, payloadSize: 400, pool: 2)
        let request = scenario.request(4)
        #expect(request.path == "/relay-to/production/" + String(repeating: "0", count: 63) + "1")
        #expect(request.contentType == "application/octet-stream")
        let names = request.headers.map(\.0)
        #expect(names == ["TTL", "Urgency", "Content-Encoding", "Encryption", "Crypto-Key"])
        #expect(request.body.count == 2 + 400 + 16, "padding length, plaintext, tag")
        #expect(scenario.errorKind(status: 201, body: []) == nil)
        #expect(scenario.errorKind(status: 429, body: []) == "http_429")
        let fcm = try WebPushRelayScenario(devices: 3, encoding: .aes128gcm, payloadSize: 400, fcmApp: "droid", pool: 1)
        #expect(fcm.request(0).path.hasPrefix("/relay-to-fcm/droid/bench0:"))
    }
}
