import Foundation
import HeraldTesting
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// `/api/push` with an `Idempotency-Key`: a repeat is answered as the first was and pushes
/// nothing again.
@Suite struct GorushIdempotencyTests {
    typealias Harness = GorushEndToEndHarness

    struct Answer {
        var status: HTTPResponse.Status
        var headers: HTTPFields
        var body: String
    }

    func push(_ h: Harness, _ body: String, key: String?) async throws -> Answer {
        var fields: HTTPFields = [.contentType: "application/json"]
        if let key { fields[HTTPField.Name("Idempotency-Key")!] = key }
        let response = try await h.client.execute(uri: "/api/push", method: .post, headers: fields, body: ByteBuffer(string: body))
        return Answer(status: response.status, headers: response.headers, body: String(buffer: response.body))
    }

    static let replayed = HTTPField.Name("Idempotent-Replayed")!

    @Test func aRepeatWithTheSameKeyGetsTheFirstAnswerAndPushesNothing() async throws {
        try await Harness.with { h in
            let body = Harness.request(Harness.ios([Harness.apnsToken(0), Harness.apnsToken(1)]))
            h.wallet.script(token: Harness.apnsToken(1), .failing(status: 400, reason: "BadDeviceToken"))
            let first = try await push(h, body, key: "order-4711")
            #expect(first.status == .ok)
            #expect(first.headers[Self.replayed] == nil)
            #expect(first.body.contains("BadDeviceToken"))
            // The token would now be delivered; the repeat must not try.
            h.wallet.script(token: Harness.apnsToken(1), nil)
            let second = try await push(h, body, key: "\"order-4711\"")
            #expect(second.status == .ok)
            #expect(second.headers[Self.replayed] == "true")
            #expect(second.body == first.body)
            #expect(h.wallet.accepted.count == 1)
            #expect(h.wallet.requestCount == 2)
            // Without a key, or with another, it is a new request.
            _ = try await push(h, body, key: nil)
            _ = try await push(h, body, key: "order-4712")
            #expect(h.wallet.accepted.count == 5)
        }
    }

    @Test func theSameKeyWithAnotherBodyIsRefusedWith422() async throws {
        try await Harness.with { h in
            _ = try await push(h, Harness.request(Harness.ios([Harness.apnsToken(0)])), key: "k1")
            let other = try await push(h, Harness.request(Harness.ios([Harness.apnsToken(1)])), key: "k1")
            #expect(other.status == .unprocessableContent)
            #expect(other.body.contains(#""code":422"#))
            #expect(other.body.contains("different request body"))
            #expect(h.wallet.accepted.map(\.token) == [Harness.apnsToken(0)])
        }
    }

    @Test func malformedKeysAreRefusedInGorushsFormat() async throws {
        try await Harness.with { h in
            let body = Harness.request(Harness.ios([Harness.apnsToken(0)]))
            for key in ["\"\"", String(repeating: "k", count: 256), "two words", "caf\u{e9}", "a\"b"] {
                let answer = try await push(h, body, key: key)
                #expect(answer.status == .badRequest, "key \(key.prefix(20))")
                #expect(answer.body.contains(#""code":400"#))
                #expect(answer.body.contains("Idempotency-Key"))
            }
            #expect(h.wallet.accepted.isEmpty)
        }
    }

    @Test func aRefusedRequestLeavesTheKeyFree() async throws {
        try await Harness.with { h in
            let refused = try await push(h, #"{"notifications":[]}"#, key: "retry-me")
            #expect(refused.status == .badRequest)
            let fixed = try await push(h, Harness.request(Harness.ios([Harness.apnsToken(0)])), key: "retry-me")
            #expect(fixed.status == .ok)
            #expect(fixed.headers[Self.replayed] == nil)
            #expect(h.wallet.accepted.count == 1)
        }
    }

    @Test func aRepeatWhileTheFirstIsInFlightIsToldToWait() async throws {
        let clock = TestClock()
        try await Harness.with(clock: clock) { h in
            // The first push is refused once and waits for its retry on the node's clock, which
            // moves only once the repeat is answered: the first is in flight however long that takes.
            h.wallet.failNext(1, status: 503, reason: "ServiceUnavailable")
            let body = Harness.request(Harness.ios([Harness.apnsToken(0)]))
            async let first = push(h, body, key: "slow")
            try await clock.waitForSleepers(1)
            let second = try await push(h, body, key: "slow")
            #expect(second.status == .conflict)
            #expect(second.headers[.retryAfter] == "1")
            try await clock.advancing(until: "the first push is delivered after its retry (accepted)", observing: { h.wallet.accepted.count }) { $0 > 0 }
            #expect(try await first.status == .ok)
            let third = try await push(h, body, key: "slow")
            #expect(third.headers[Self.replayed] == "true")
            #expect(h.wallet.accepted.count == 1)
        }
    }

    @Test func anAnswerWhereEverythingFailedForNowIsNotKept() async throws {
        try await Harness.with { h in
            let token = Harness.apnsToken(0)
            h.wallet.script(token: token, .failing(status: 503, reason: "ServiceUnavailable"))
            let body = Harness.request(Harness.ios([token]))
            let first = try await push(h, body, key: "try-again")
            #expect(first.status == .ok)
            #expect(first.body.contains("ServiceUnavailable") || first.body.contains("retries"), "\(first.body)")
            // APNs recovers; the same key now delivers instead of replaying the failure.
            h.wallet.script(token: token, nil)
            let second = try await push(h, body, key: "try-again")
            #expect(second.headers[Self.replayed] == nil)
            #expect(h.wallet.accepted.map(\.token) == [token])
            // A permanent failure, by contrast, is kept.
            h.wallet.script(token: Harness.apnsToken(1), .failing(status: 400, reason: "BadDeviceToken"))
            let bad = Harness.request(Harness.ios([Harness.apnsToken(1)]))
            _ = try await push(h, bad, key: "gone")
            #expect(try await push(h, bad, key: "gone").headers[Self.replayed] == "true")
        }
    }
}
