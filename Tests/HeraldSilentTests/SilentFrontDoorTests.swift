import HeraldCore
import HeraldDelivery
import HeraldFrontDoor
import HeraldStore
import HeraldTesting
import HTTPTypes
import MetricsTestKit
import Testing

@testable import HeraldSilent

/// What `SilentFrontDoor.make` refuses at start, and where a registration goes once made, on a
/// store of its own and the real providers of four apps, each talking to a mock APNs or FCM (a
/// node alone: every partition is its own).
@Suite struct SilentFrontDoorTests {
    /// `toot`: APNs production and FCM; `toot-dev`: APNs sandbox; `news`: APNs only; `droid`: FCM only.
    static let apps: [(id: String, peers: [ProviderPeers.Peer])] = [
        ("toot", [.apns, .fcm]),
        ("toot-dev", [.apnsSandbox]),
        ("news", [.apns]),
        ("droid", [.fcm]),
    ]

    static func withContext(_ body: (FrontDoorContext) async throws -> Void) async throws {
        try await ProviderPeers.with(apps: Self.apps) { peers in
            try await withRegistry { store, registry in
                try await body(
                    FrontDoorContext(
                        registry: registry,
                        markers: store.markers,
                        delivery: peers.providers,
                        metrics: TestMetrics(),
                        logger: Fixtures.logger,
                        clock: TestClock()
                    )
                )
            }
        }
    }

    static func configuration(app: String? = nil, sandboxApp: String? = nil, services: [SilentService] = []) -> SilentConfiguration {
        var configuration = SilentConfiguration()
        configuration.app = app
        configuration.sandboxApp = sandboxApp
        configuration.services = services
        return configuration
    }

    /// The start-up refusal, or `nil` when the front door is made (or not wanted).
    static func refusal(_ configuration: SilentConfiguration, _ context: FrontDoorContext) -> String? {
        do {
            _ = try SilentFrontDoor.make(configuration: configuration, context: context)
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func startRefusesServicesThatCannotDeliverToTheirDevices() async throws {
        try await Self.withContext { context in
            var withoutApps = context
            withoutApps.delivery = nil
            #expect(Self.refusal(Self.configuration(app: "toot"), withoutApps)?.contains("silent sync needs the apps it pushes to") == true)
            #expect(Self.refusal(Self.configuration(app: "ghost"), context)?.contains("silent.app names 'ghost'") == true)
            #expect(
                Self.refusal(Self.configuration(app: "toot-dev"), context)?.contains("whose APNs environment is sandbox") == true,
                "IOS tokens are BadDeviceToken in the sandbox"
            )
            #expect(Self.refusal(Self.configuration(app: "toot", sandboxApp: "news"), context)?.contains("silent.sandbox-app names 'news'") == true)
            #expect(
                Self.refusal(Self.configuration(services: [SilentService(name: "chat", app: "ghost", sandboxApp: nil)]), context)?
                    .contains("silent.services (service 'chat') names 'ghost'") == true
            )
            #expect(
                Self.refusal(Self.configuration(services: [SilentService(name: "chat", app: "toot", sandboxApp: "news")]), context)?
                    .contains("silent.services (service 'chat') names 'news'") == true
            )
            #expect(Self.refusal(Self.configuration(app: "droid"), context) == nil, "FCM alone is enough")
            let unwanted = try SilentFrontDoor.make(configuration: SilentConfiguration(), context: withoutApps)
            #expect(unwanted == nil, "nothing configured, nothing made")
        }
    }

    @Test func registrationsReachTheAppOfTheirPushType() async throws {
        try await Self.withContext { context in
            let news = SilentService(name: "news", app: "news", sandboxApp: nil)
            let configuration = Self.configuration(app: "toot", sandboxApp: "toot-dev", services: [news])
            let door = try #require(try SilentFrontDoor.make(configuration: configuration, context: context))
            let sync = door.sync
            let main = try sync.service(named: SilentService.defaultName)
            #expect(try sync.service(named: "news") == news)
            #expect(throws: SilentError.unknownService("chat")) { try sync.service(named: "chat") }
            #expect(sync.app(for: .ios, in: main) == "toot")
            #expect(sync.app(for: .and, in: main) == "toot")
            #expect(sync.app(for: .iod, in: main) == "toot-dev")
            #expect(sync.app(for: .ios, in: news) == "news")
            #expect(sync.app(for: .and, in: news) == nil, "news has no FCM credentials")
            #expect(sync.app(for: .iod, in: news) == nil, "nor a sandbox app")

            try await sync.register(SilentRegistrationRequest(deviceID: "A", pushType: .and, token: Fixtures.fcmToken(1)), service: main)
            let stored = try context.registry.record(for: SilentRegistrations.key(service: main.name, deviceID: "A"))?.registration
            #expect(stored?.device == Device(platform: .fcm, token: Fixtures.fcmToken(1), app: "toot"))
            let refused = await #expect(throws: SilentError.self) {
                try await sync.register(SilentRegistrationRequest(deviceID: "B", pushType: .and, token: Fixtures.fcmToken(2)), service: news)
            }
            #expect(refused?.status == HTTPResponse.Status.badRequest)
            #expect(try context.registry.record(for: SilentRegistrations.key(service: "news", deviceID: "B")) == nil)
            // Unregistering reaches no device, so it needs no app.
            try await sync.register(SilentRegistrationRequest(deviceID: "B", pushType: .and, token: nil), service: news)

            let summary = door.summary.message
            #expect(summary.contains("POST /v3/register → toot (IOD → toot-dev)"))
            #expect(summary.contains("POST /news/v3/register → news"))
            #expect(summary.contains("at most 3 an hour a device"))
        }
    }
}
