import Crypto
import Foundation
import HeraldCore
import HeraldDelivery
import HeraldTesting
import Logging
import NIOPosix
import Testing

/// The Web Push provider against a strict push service in Python that decrypts every message
/// with http_ece and checks the VAPID token with `cryptography`: what it sends, what each answer
/// becomes, and the endpoints it refuses to send to.
@Suite struct WebPushProviderTests {
    static let subject = "mailto:ops@herald.test"

    /// Answers with fixed addresses, or never (a name server that does not answer).
    struct Resolver: HostResolver {
        var addresses: [String]?

        func addresses(of host: String, port: Int) async throws -> [String] {
            guard let addresses = self.addresses else {
                try await Task.sleep(for: .seconds(3600))
                return []
            }
            return addresses
        }
    }

    static func provider(
        _ peer: PushServicePeer,
        key: P256.Signing.PrivateKey = P256.Signing.PrivateKey(),
        allowedEndpoints: [String] = ["localhost:*", "127.0.0.1:*"],
        allowedAddresses: [String] = ["127.0.0.0/8"],
        resolver: any HostResolver = SystemHostResolver(),
        deadline: Duration = .seconds(30),
        requestTimeout: Duration = .seconds(15)
    ) throws -> WebPushProvider {
        var configuration = WebPushProvider.Configuration(
            endpoints: WebPushEndpointPolicy(
                allowedEndpoints: allowedEndpoints.map { Glob($0, caseInsensitive: true) },
                allowedAddresses: allowedAddresses.map { AddressRange($0)! },
                resolver: resolver
            )
        )
        configuration.trustRootsPEM = [try String(contentsOfFile: peer.certificateFile, encoding: .utf8)]
        configuration.deadline = deadline
        configuration.requestTimeout = min(deadline, requestTimeout)
        return try WebPushProvider(
            configuration: configuration,
            vapid: try VAPIDSigner(key: key, subject: Self.subject),
            group: MultiThreadedEventLoopGroup.singleton,
            logger: Logger(label: "webpush-test")
        )
    }

    static func push(_ token: String, payload: String = #"{"title":"hi"}"#, priority: PushNotification.Priority? = nil, expiration: Int64? = nil, collapseID: String? = nil) -> PushNotification {
        PushNotification(
            id: RandomUUID.lowercased(),
            device: Device(platform: .webPush, token: token),
            payload: Array(payload.utf8),
            priority: priority,
            expiration: expiration,
            collapseID: collapseID
        )
    }

    static func outcomes(_ results: [DeliveryResult]) -> [DeliveryOutcome?] {
        results.map { try? $0.result.get() }
    }

    @Test func theServiceDecryptsEveryPushAndAcceptsItsVAPIDToken() async throws {
        let key = P256.Signing.PrivateKey()
        let vapid = Base64URL.encode(key.publicKey.x963Representation)
        try await PushServicePeer.with(subscriptions: ["a": .ok, "b": .ok, "c": .ok], vapidKey: vapid) { peer in
            let provider = try Self.provider(peer, key: key)
            let now = Int64(Date().timeIntervalSince1970)
            let pushes = [
                Self.push(peer.token("a"), payload: #"{"title":"Alice","body":"héllo ✓"}"#, priority: .immediate),
                Self.push(peer.token("b"), payload: "{" + String(repeating: " ", count: WebPushRequest.maximumPayload - 2) + "}", priority: .powerFirst, expiration: now + 600, collapseID: "room-1"),
                Self.push(peer.token("c"), collapseID: "!room:example.org/with spaces that are no topic"),
            ]
            let results = await provider.send(all: pushes)
            #expect(Self.outcomes(results) == [.delivered, .delivered, .delivered])
            #expect(results.map { $0.answer?.status } == [201, 201, 201])
            let received = try await peer.waitForReceived(3)
            await provider.shutdown()
            #expect(received.compactMap(\.violation) == [])
            let byID = Dictionary(received.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            for (id, push) in zip(["a", "b", "c"], pushes) {
                let message = try #require(byID[id])
                #expect(message.plaintext == push.payload, "\(id): decrypted by http_ece, byte for byte")
                #expect(message.headers["content-encoding"] == "aes128gcm")
                #expect(message.vapid["sub"] as? String == Self.subject)
                #expect(message.vapid["aud"] as? String == "https://localhost:\(peer.port)")
                #expect(message.vapid["k"] as? String == vapid)
            }
            #expect(byID["a"]?.headers["urgency"] == "high")
            #expect(byID["a"]?.headers["ttl"] == "86400")
            #expect(byID["a"]?.headers["topic"] == nil)
            #expect(byID["b"]?.headers["urgency"] == "low")
            #expect((590...600).contains(Int(byID["b"]?.headers["ttl"] ?? "") ?? -1), "TTL counts down to the expiry")
            #expect(byID["b"]?.headers["topic"] == "room-1")
            #expect(byID["c"]?.headers["urgency"] == "normal")
            let topic = try #require(byID["c"]?.headers["topic"])
            #expect(topic.count == 32 && topic.utf8.allSatisfy(Base64URL.isAlphabet), "a collapse id that is no topic is hashed into one")
        }
    }

    @Test func eachAnswerOfThePushServiceEndsThePushAsItMeans() async throws {
        let behaviours: [String: PushServicePeer.Behaviour] = [
            "gone": .gone, "expired": .expired, "big": .tooBig, "forbidden": .forbidden, "busy": .busyOnce, "error": .errorOnce,
        ]
        try await PushServicePeer.with(subscriptions: behaviours) { peer in
            let provider = try Self.provider(peer)
            let ids = ["gone", "expired", "big", "forbidden", "busy", "error"]
            let results = await provider.send(all: ids.map { Self.push(peer.token($0)) })
            await provider.shutdown()
            let outcomes = Dictionary(uniqueKeysWithValues: zip(ids, Self.outcomes(results)))
            #expect(outcomes["gone"] == .deadToken(DeliveryFailure(.subscriptionGone, "HTTP 410: subscription gone")))
            #expect(outcomes["expired"]??.failure?.code == .subscriptionExpired)
            #expect(outcomes["expired"]??.result == "dead_token")
            #expect(outcomes["big"]??.failure?.code == .payloadTooLarge)
            #expect(outcomes["big"]??.result == "rejected")
            #expect(outcomes["forbidden"]??.failure?.code == .credentials, "a refused VAPID key is the operator's, not the token's")
            #expect(outcomes["forbidden"]??.result == "failed")
            #expect(outcomes["busy"] == .delivered, "429 with Retry-After, then delivered")
            #expect(outcomes["error"] == .delivered, "503, then delivered")
            let received = try peer.received()
            #expect(received.filter { $0.id == "busy" }.map(\.status) == [429, 201])
            #expect(received.filter { $0.id == "error" }.map(\.status) == [503, 201])
            #expect(received.filter { $0.id == "gone" }.count == 1, "a dead subscription is not asked twice")
            #expect(received.compactMap(\.violation) == [])
        }
    }

    @Test func loopbackAndHostsOffTheListAreNeverSentTo() async throws {
        try await PushServicePeer.with(subscriptions: ["a": .ok]) { peer in
            // localhost resolves (getaddrinfo, /etc/hosts) to loopback only: refused after resolution.
            let strict = try Self.provider(peer, allowedAddresses: [])
            let byName = await strict.send(all: [Self.push(peer.token("a")), Self.push(peer.token("a", host: "127.0.0.1")), Self.push(peer.token("a", host: "[::1]"))])
            for outcome in Self.outcomes(byName) {
                #expect(outcome?.failure?.code == .endpointRefused)
                #expect(outcome?.result == "rejected")
            }
            #expect(Self.outcomes(byName)[0]?.failure?.detail.contains("not public") == true)
            await strict.shutdown()
            // The browsers' push services only: this host is not one.
            let listed = try Self.provider(peer, allowedEndpoints: WebPushAppConfiguration.browserPushServices.map(\.pattern))
            let offList = await listed.send(all: [Self.push(peer.token("a"))])
            #expect(Self.outcomes(offList)[0]?.failure?.code == .endpointRefused)
            #expect(Self.outcomes(offList)[0]?.failure?.detail.contains("allowed-endpoints") == true)
            await listed.shutdown()
            #expect(try peer.received().isEmpty, "nothing reached the push service")
            // Allowed explicitly, the same push goes through.
            let allowed = try Self.provider(peer)
            #expect(Self.outcomes(await allowed.send(all: [Self.push(peer.token("a"))])) == [.delivered])
            await allowed.shutdown()
        }
    }

    @Test func tokensThatAreNoSubscriptionAndPayloadsTooLargeAreRejectedUnsent() async throws {
        try await PushServicePeer.with(subscriptions: ["a": .ok]) { peer in
            let provider = try Self.provider(peer)
            let token = peer.token("a")
            let results = await provider.send(all: [
                Self.push("not json"),
                Self.push(token.replacingOccurrences(of: "https://", with: "http://")),
                Self.push(#"{"endpoint":"https://localhost/push/a","keys":{"p256dh":"AAAA","auth":"AAAAAAAAAAAAAAAAAAAAAA"}}"#),
                Self.push(token, payload: "{" + String(repeating: " ", count: WebPushRequest.maximumPayload - 1) + "}"),
            ])
            await provider.shutdown()
            let outcomes = Self.outcomes(results)
            #expect(outcomes.prefix(3).map { $0?.failure?.code } == [.badSubscription, .badSubscription, .badSubscription])
            #expect(outcomes[1]?.failure?.detail.contains("https only") == true)
            #expect(outcomes[2]?.failure?.detail.contains("p256dh") == true)
            #expect(outcomes[3]?.failure?.code == .payloadTooLarge)
            #expect(outcomes.allSatisfy { $0?.result == "rejected" })
            #expect(try peer.received().isEmpty)
        }
    }

    @Test func aHostWhoseAddressFailsIsReachedAtItsNext() async throws {
        try await PushServicePeer.with(subscriptions: ["a": .ok]) { peer in
            // Nothing listens on 127.0.0.3 at the peer's port: the first pin is refused (and
            // AsyncHTTPClient tries to connect until the attempt's timeout). The same timeout
            // bounds the second attempt's TLS handshake and POST to the Python peer, which took
            // more than 2 s once on two loaded cores.
            let provider = try Self.provider(peer, resolver: Resolver(addresses: ["127.0.0.3", "127.0.0.1"]), requestTimeout: TestTime.bound(.seconds(6)))
            #expect(Self.outcomes(await provider.send(all: [Self.push(peer.token("a"))])) == [.delivered])
            #expect(Self.outcomes(await provider.send(all: [Self.push(peer.token("a"))])) == [.delivered], "the working address stays pinned")
            await provider.shutdown()
            #expect(try peer.received().count == 2)
        }
    }

    @Test func aNameServerThatNeverAnswersEndsThePushAtItsDeadline() async throws {
        try await PushServicePeer.with(subscriptions: ["a": .ok]) { peer in
            let provider = try Self.provider(peer, resolver: Resolver(addresses: nil), deadline: .seconds(2))
            let outcome = Self.outcomes(await provider.send(all: [Self.push(peer.token("a"))]))[0]
            #expect(outcome?.failure?.code == .deadlineExceeded || outcome?.failure?.code == .retriesExhausted, "\(String(describing: outcome))")
            #expect(outcome?.failure?.detail.contains("took longer") == true)
            await provider.shutdown()
            #expect(try peer.received().isEmpty)
        }
    }
}
