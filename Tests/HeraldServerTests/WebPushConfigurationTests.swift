import Crypto
import Foundation
import HeraldConfig
import HeraldDelivery
import HeraldServer
import HeraldStore
import HeraldTesting
import HeraldAries
import HeraldSilent
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
            "--webpush-vapid-keys", "\(Self.key),droid=\(Self.key)", "--webpush-vapid-audience", "https://relay.example",
            "--webpush-oversize", "reduced",
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
        (["--webpush-vapid-keys", key], "is required with webpush.vapid-keys"),
        (["--webpush-vapid-keys", key, "--webpush-vapid-audience", "https://relay.example/push"], "not an origin"),
        (["--webpush-production-app", "droid", "--webpush-fcm-apps", "default"], "also a relay's name"),
    ])
    func mistakesNameTheirKey(arguments: [String], expected: String) async {
        let message = await self.error(arguments)
        #expect(message?.contains(expected) == true, "\(arguments): \(message ?? "taken")")
    }

    /// Builds a node with `webpush` and one app `wallet` with APNs (`environment`) and FCM.
    func buildError(
        _ webpush: WebPushConfiguration,
        environment: APNSAppConfiguration.Environment = .production,
        aries: AriesConfiguration = AriesConfiguration(),
        silent: SilentConfiguration = SilentConfiguration()
    ) async throws -> String? {
        try await withTemporaryDirectory { directory in
            let account = try TestServiceAccount(projectID: "herald-config")
            try account.json(tokenURI: "https://127.0.0.1:1/token").write(toFile: directory + "/sa.json", atomically: true, encoding: .utf8)
            try P256.Signing.PrivateKey().pemRepresentation.write(toFile: directory + "/key.p8", atomically: true, encoding: .utf8)
            var configuration = HeraldConfiguration()
            configuration.store.path = directory + "/data"
            var apns = APNSAppConfiguration()
            apns.keyFile = directory + "/key.p8"
            apns.keyID = "ABC123DEFG"
            apns.teamID = "DEF123GHIJ"
            apns.environment = environment
            var fcm = FCMAppConfiguration()
            fcm.serviceAccountFile = directory + "/sa.json"
            configuration.apps["wallet"] = HeraldConfiguration.App(apns, fcm)
            configuration.apps["droid"] = HeraldConfiguration.App(fcm)
            configuration.frontDoors[WebPushConfiguration.self] = webpush
            configuration.frontDoors[AriesConfiguration.self] = aries
            configuration.frontDoors[SilentConfiguration.self] = silent
            do {
                let node = try HeraldNode.build(configuration: configuration, logger: Logger(label: "test"))
                await node.delivery?.shutdown()
                try await node.close()
                return nil
            } catch {
                return "\(error)"
            }
        }
    }

    @Test func relayAppsMustHaveTheProviderAndEnvironmentTheirPathsNeed() async throws {
        var webpush = WebPushConfiguration()
        webpush.productionApp = "wallet"
        #expect(try await self.buildError(webpush) == nil)
        webpush.productionApp = "droid"
        #expect(try await self.buildError(webpush)?.contains("webpush.production-app names 'droid', which is not an app with APNs credentials") == true)
        webpush.productionApp = "wallet"
        let sandbox = try await self.buildError(webpush, environment: .sandbox)
        #expect(sandbox?.contains("apps.wallet.apns.environment is sandbox; its relay paths need production") == true, "\(sandbox ?? "built")")
        webpush.productionApp = nil
        webpush.sandboxApp = "wallet"
        #expect(try await self.buildError(webpush)?.contains("webpush.sandbox-app") == true)
        webpush.sandboxApp = nil
        webpush.fcmApps = ["wallet", "missing"]
        #expect(try await self.buildError(webpush)?.contains("webpush.fcm-apps names 'missing'") == true)
    }
}

/// `aries.*` and `silent.*` name apps that must have the providers their protocols push through.
@Suite struct FrontDoorAppConfigurationTests {
    @Test func ariesAndSilentAppsMustHaveTheirProviders() async throws {
        let tests = WebPushConfigurationTests()
        var aries = AriesConfiguration()
        aries.fcmApp = "wallet"
        var silent = SilentConfiguration()
        silent.app = "wallet"
        #expect(try await tests.buildError(WebPushConfiguration(), aries: aries, silent: silent) == nil)
        aries.apnsApp = "droid"
        #expect(try await tests.buildError(WebPushConfiguration(), aries: aries)?.contains("aries.apns-app names 'droid', which is not an app with APNs credentials") == true)
        silent.app = "wallet"
        silent.sandboxApp = "wallet"
        #expect(try await tests.buildError(WebPushConfiguration(), silent: silent)?.contains("silent.sandbox-app names 'wallet'") == true)
        let sandbox = try await tests.buildError(WebPushConfiguration(), environment: .sandbox, silent: SilentConfiguration.with(app: "wallet"))
        #expect(sandbox?.contains("whose APNs environment is sandbox") == true, "\(sandbox ?? "built")")
    }
}

extension SilentConfiguration {
    static func with(app: String) -> SilentConfiguration {
        var configuration = SilentConfiguration()
        configuration.app = app
        return configuration
    }
}
