import Foundation
import HeraldConfig
import HeraldCore
import HeraldServer
import HeraldTestTraits
import HeraldTesting
import Logging
import Testing

/// `herald send`'s push: built from the node's configuration, through the strict mocks, with the
/// provider's answer as the operator sees it.
@Suite(.loadHeavy) struct OnePushTests {
    static func configuration(_ harness: PushNodeHarness) async throws -> HeraldConfiguration {
        try await HeraldConfiguration.load(from: ConfigurationSources(filePath: harness.directory + "/herald.yaml")).configuration
    }

    @Test func anAPNsPushIsDeliveredWithItsApnsID() async throws {
        try await PushNodeHarness.with { harness in
            var push = OnePush(app: "toot", token: PushNodeHarness.apnsToken(1), message: "credentials work")
            push.platform = .apns
            push.title = "Herald"
            let answer = try await push.send(configuration: try await Self.configuration(harness), logger: Logger(label: "test"))
            #expect(answer.delivered)
            #expect(answer.status == 200)
            let accepted = try #require(harness.production.accepted.last)
            #expect(answer.apnsID == accepted.apnsID, "the apns-id APNs answered with is the push's")
            #expect(accepted.topic == PushNodeHarness.topic)
            let payload = try #require(try JSONSerialization.jsonObject(with: Data(accepted.payload)) as? [String: Any])
            let alert = (payload["aps"] as? [String: Any])?["alert"] as? [String: Any]
            #expect(alert?["title"] as? String == "Herald")
            #expect(alert?["body"] as? String == "credentials work")
        }
    }

    @Test func aDeadTokenIsReportedWithAPNsStatusAndReason() async throws {
        try await PushNodeHarness.with { harness in
            let token = PushNodeHarness.apnsToken(2)
            harness.production.script(token: token, .unregistered(since: Date(timeIntervalSince1970: 1_700_000_000)))
            var push = OnePush(app: "toot", token: token, message: "hello")
            push.platform = .apns
            let answer = try await push.send(configuration: try await Self.configuration(harness), logger: Logger(label: "test"))
            #expect(!answer.delivered)
            #expect(answer.status == 410)
            #expect(answer.outcome.result == "dead_token")
            #expect(answer.outcome.failure?.code == .unregistered)
        }
    }

    @Test func sandboxSendsToTheSandboxEnvironment() async throws {
        try await PushNodeHarness.with { harness in
            // toot-dev's sandbox mock accepts only sandbox tokens; its section already says sandbox,
            // so --sandbox must leave it working, and toot (production) must not gain an apns host.
            var push = OnePush(app: "toot-dev", token: PushNodeHarness.apnsToken(3), message: "hello")
            push.sandbox = true
            let answer = try await push.send(configuration: try await Self.configuration(harness), logger: Logger(label: "test"))
            #expect(answer.delivered)
            #expect(answer.endpoint.contains("sandbox"))
            #expect(harness.sandbox.accepted.count == 1)
            // A production app named with --sandbox is built for the sandbox environment.
            var production = OnePush(app: "toot", token: PushNodeHarness.apnsToken(4), message: "hello")
            production.platform = .apns
            production.sandbox = true
            let other = try await production.send(configuration: try await Self.configuration(harness), logger: Logger(label: "test"))
            #expect(other.endpoint.contains("sandbox"), "\(other.endpoint)")
        }
    }

    @Test func anFCMPushAnswersWithTheMessageName() async throws {
        try await PushNodeHarness.with { harness in
            let push = OnePush(app: "droid", token: PushNodeHarness.fcmToken(1), message: "hello android")
            let answer = try await push.send(configuration: try await Self.configuration(harness), logger: Logger(label: "test"))
            #expect(answer.delivered, "\(answer.outcome)")
            #expect(answer.status == 200)
            let name = try #require(answer.messageName)
            #expect(name.hasPrefix("projects/herald-relay/messages/"))
            #expect(harness.fcm.accepted.last?.name == name)
        }
    }

    @Test func whatMakesNoPushIsRefusedSayingWhy() async throws {
        try await PushNodeHarness.with { harness in
            let configuration = try await Self.configuration(harness)
            let unknown = OnePush(app: "nope", token: "ab", message: "x")
            await #expect(throws: OnePush.Refusal.self) { try await unknown.send(configuration: configuration, logger: Logger(label: "test")) }
            // toot has APNs and FCM: the platform must be said.
            let ambiguous = OnePush(app: "toot", token: "ab", message: "x")
            let error = await #expect(throws: OnePush.Refusal.self) { try await ambiguous.send(configuration: configuration, logger: Logger(label: "test")) }
            #expect(error?.description.contains("--platform") == true)
            var sandboxFCM = OnePush(app: "droid", token: "ab", message: "x")
            sandboxFCM.sandbox = true
            await #expect(throws: OnePush.Refusal.self) { try await sandboxFCM.send(configuration: configuration, logger: Logger(label: "test")) }
            #expect(harness.production.accepted.isEmpty && harness.fcm.accepted.isEmpty, "nothing was sent")
        }
    }
}
