import Foundation
import HeraldConfig
import HeraldServer
import HeraldTesting
import HeraldWebPush
import Logging
import Testing

/// `webpush.*` as an operator writes it, and the mistakes start-up must name.
@Suite struct WebPushConfigurationTests {
    static let key = "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8"

    func load(_ arguments: [String]) async throws -> WebPushConfiguration {
        try await withTemporaryDirectory { directory in
            try await HeraldConfiguration.load(
                from: ConfigurationSources(arguments: arguments, environment: [:], filePath: nil, defaultFilePath: directory + "/absent.yaml")
            ).configuration.frontDoors[WebPushConfiguration.self]
        }
    }

    func error(_ arguments: [String]) async -> String? {
        do {
            _ = try await self.load(arguments)
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func relaysFCMAppsAndScopedKeysAreRead() async throws {
        let configuration = try await self.load([
            "--webpush-production-app", "toot", "--webpush-sandbox-app", "toot-dev",
            "--webpush-relays", "mast=mast/mast-dev,solo=solo", "--webpush-fcm-apps", "droid",
            "--webpush-vapid-keys", "\(Self.key),droid=\(Self.key)", "--webpush-oversize", "reduced",
        ])
        #expect(configuration.allRelays == [
            RelayDefinition(name: "default", productionApp: "toot", sandboxApp: "toot-dev"),
            RelayDefinition(name: "mast", productionApp: "mast", sandboxApp: "mast-dev"),
            RelayDefinition(name: "solo", productionApp: "solo", sandboxApp: nil),
        ])
        #expect(configuration.allRelays[1].pathPrefix == "/mast/relay-to")
        #expect(configuration.fcmApps == ["droid"])
        #expect(configuration.vapidKeys.map(\.scope) == [nil, "droid"])
        #expect(configuration.oversize == .reduced)
        #expect(configuration.rateLimit == 120)
        #expect(try await !self.load([]).isEnabled)
    }

    @Test(arguments: [
        (["--webpush-relays", "mast"], "webpush.relays"),
        (["--webpush-relays", "Bad Name=x"], "webpush.relays"),
        (["--webpush-relays", "default=x"], "webpush.relays"),
        (["--webpush-relays", "a=x,a=y"], "defined twice"),
        (["--webpush-vapid-keys", "not-a-key"], "webpush.vapid-keys"),
        (["--webpush-production-app", "t", "--webpush-vapid-keys", "other=\(key)"], "neither a relay"),
        (["--webpush-oversize", "split"], "webpush.oversize"),
    ])
    func mistakesNameTheirKey(arguments: [String], expected: String) async {
        let message = await self.error(arguments)
        #expect(message?.contains(expected) == true, "\(arguments): \(message ?? "taken")")
    }

    @Test func aRelayAppWithoutAPNsStopsStartUp() async throws {
        try await withTemporaryDirectory { directory in
            var configuration = HeraldConfiguration()
            configuration.store.path = directory + "/data"
            var webpush = WebPushConfiguration()
            webpush.productionApp = "missing"
            configuration.frontDoors[WebPushConfiguration.self] = webpush
            do {
                _ = try HeraldNode.build(configuration: configuration, logger: Logger(label: "test"))
                Issue.record("a relay to no app must stop start-up")
            } catch {
                #expect("\(error)".contains("apps"), "\(error)")
            }
        }
    }
}
