import Foundation
import HeraldTesting
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// The per-address limits of the routes devices reach without a credential: NotifyMe
/// registrations and DIDComm envelopes, over real connections (the limit counts the address a
/// connection comes from).
@Suite struct ClientRateLimitTests {
    typealias Harness = PushNodeHarness

    @Test func silentRegistrationsPastTheLimitAre429WithRetryAfter() async throws {
        // The node's clock stands still: no token comes back however slow this machine is.
        try await SilentEndToEndTests.with(extraYAML: "  client-rate-limit: 2\n", clock: TestClock(), setup: .live) { h in
            for index in 0..<2 {
                let registered = try await SilentEndToEndTests.register(h, deviceID: "limited-\(index)", token: Harness.apnsToken(800 + index))
                #expect(registered.status == .ok)
            }
            let refused = try await SilentEndToEndTests.register(h, deviceID: "limited-2", token: Harness.apnsToken(802))
            #expect(refused.status == .tooManyRequests)
            let seconds = try #require(refused.headers[.retryAfter].flatMap { Int($0) })
            #expect(seconds == 30, "2 a minute: the next in 30 s")
            #expect(String(buffer: refused.body).contains("more than 2 registrations a minute (silent.client-rate-limit)"))
            // Charged before the body is read: a malformed one counts too and is refused the same.
            let garbage = try await h.client.execute(uri: "/v1/register", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: "{"))
            #expect(garbage.status == .tooManyRequests)
            #expect(try await h.metrics().contains(#"herald_silent_rate_limited_total{service="default"} 2"#))
        }
    }

    @Test func didcommEnvelopesPastTheLimitAre429BeforeTheyAreOpened() async throws {
        let yaml = AriesEndToEndTests.ariesYAML + "  identity-key-file: $DIR/didcomm.key\n  client-rate-limit: 2\n"
        try await Harness.with(frontDoorYAML: yaml, clock: TestClock(), setup: .live, prepare: { directory in
            try (AriesEnvelopeTests.heraldSeed + "\n").write(toFile: directory + "/didcomm.key", atomically: true, encoding: .utf8)
        }) { h in
            func post() async throws -> TestResponse {
                try await h.client.execute(
                    uri: "/aries/v1/didcomm",
                    method: .post,
                    headers: [.contentType: "application/didcomm-envelope-enc"],
                    body: ByteBuffer(string: #"{"protected":"e30","iv":"","ciphertext":"","tag":""}"#)
                )
            }
            for _ in 0..<2 {
                #expect(try await post().status == .badRequest, "within the limit the envelope is opened, and refused")
            }
            let refused = try await post()
            #expect(refused.status == .tooManyRequests)
            #expect(refused.headers[.retryAfter].flatMap { Int($0) } != nil)
            #expect(String(buffer: refused.body).contains("more than 2 envelopes a minute (aries.client-rate-limit)"))
            #expect(try await h.metrics().contains("herald_aries_rate_limited_total 1"))
        }
    }
}
