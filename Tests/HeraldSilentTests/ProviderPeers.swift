import Crypto
import Foundation
import HeraldCore
import HeraldDelivery
import HeraldTesting
import Logging
import MetricsTestKit
import NIOCore
import NIOPosix

/// The real providers of the apps a suite names (`APNSProvider`, `FCMProvider`), assembled into
/// `AppProviders` as the node assembles them, each talking over TLS and HTTP/2 on 127.0.0.1 to a
/// strict test peer: `MockAPNS` as production APNs, a second `MockAPNS` as the sandbox, `MockFCM`.
/// Tests script the peers' answers and read back what they received.
struct ProviderPeers {
    /// The peer an app's provider talks to.
    enum Peer: Sendable {
        case apns
        case apnsSandbox
        case fcm
    }

    /// The apps' bundle id: the only topic the mock APNs allow the signing key's team.
    static let topic = "cx.c3.toot"
    static let keyID = "SILENT0001"
    static let teamID = "TEAM000001"

    let apns: MockAPNS
    let sandbox: MockAPNS
    let fcm: MockFCM
    let providers: AppProviders

    /// Starts the peers, builds the providers of `apps` on `clock` (deadlines, back-off and token
    /// age, as `ProviderContext.clock`), runs `body`, then shuts the providers and every peer
    /// down, whether `body` returned or threw. `endpoint` adjusts every provider's connection
    /// pool (attempts, queue limit, back-off).
    static func with<T>(
        apps: [(id: String, peers: [Peer])] = [("toot", [.apns, .fcm])],
        clock: any Clock<Duration> = ContinuousClock(),
        metrics: TestMetrics = TestMetrics(),
        deadTokenHandlers: [any DeadTokenHandler] = [],
        endpoint: (inout ConnectionPool.Configuration) -> Void = { _ in },
        _ body: (ProviderPeers) async throws -> T
    ) async throws -> T {
        let key = P256.Signing.PrivateKey()
        let account = try TestServiceAccount(projectID: "herald-silent")
        let signingKey = MockAPNS.SigningKey(keyID: Self.keyID, teamID: Self.teamID, publicKey: key.publicKey)
        var production = MockAPNS.Configuration(keys: [signingKey])
        production.topics = [Self.teamID: [Self.topic]]
        var sandboxConfiguration = production
        sandboxConfiguration.environment = .sandbox

        let apns = try await MockAPNS.start(configuration: production)
        let sandbox: MockAPNS
        let fcm: MockFCM
        do {
            sandbox = try await MockAPNS.start(configuration: sandboxConfiguration)
        } catch {
            try? await apns.shutdown()
            throw error
        }
        do {
            fcm = try await MockFCM.start(configuration: account.mockConfiguration())
        } catch {
            try? await apns.shutdown()
            try? await sandbox.shutdown()
            throw error
        }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        var built: [any PushProvider] = []
        func stop() async {
            for provider in built { await provider.shutdown() }
            try? await group.shutdownGracefully()
            try? await apns.shutdown()
            try? await sandbox.shutdown()
            await fcm.shutdown()
        }

        do {
            let serviceAccount = try FCMServiceAccount(json: Data(account.json(tokenURI: fcm.tokenURI).utf8))
            func provider(_ peer: Peer) throws -> any PushProvider {
                switch peer {
                case .apns, .apnsSandbox:
                    let mock = peer == .apns ? apns : sandbox
                    var configuration = APNSProvider.Configuration(
                        host: "127.0.0.1",
                        port: mock.port,
                        authority: "localhost",
                        trustRootsPEM: [mock.certificatePEM]
                    )
                    configuration.defaultTopic = Self.topic
                    configuration.environment = peer == .apns ? .production : .sandbox
                    endpoint(&configuration.endpoint)
                    let tokens = try APNSTokenManager(
                        credentials: .init(keyID: Self.keyID, teamID: Self.teamID, privateKeyPEM: key.pemRepresentation),
                        clock: clock
                    )
                    return APNSProvider(configuration: configuration, tokens: tokens, group: group, logger: Fixtures.logger, clock: clock)
                case .fcm:
                    var configuration = FCMProvider.Configuration(
                        projectID: account.projectID,
                        host: "127.0.0.1",
                        port: fcm.port,
                        authority: "localhost",
                        trustRootsPEM: [fcm.certificatePEM]
                    )
                    endpoint(&configuration.endpoint)
                    let tokens = try FCMTokenManager(serviceAccount: serviceAccount, trustRootsPEM: [fcm.certificatePEM], group: group, clock: clock)
                    return FCMProvider(configuration: configuration, tokens: tokens, group: group, logger: Fixtures.logger, clock: clock)
                }
            }
            var assembled: [AppProviders.App] = []
            for app in apps {
                var providers: [any PushProvider] = []
                for peer in app.peers {
                    let made = try provider(peer)
                    built.append(made)
                    providers.append(made)
                }
                assembled.append(AppProviders.App(id: app.id, providers: providers))
            }
            let peers = ProviderPeers(
                apns: apns,
                sandbox: sandbox,
                fcm: fcm,
                providers: AppProviders(
                    apps: assembled,
                    defaultApp: nil,
                    metrics: DeliveryMetrics(factory: metrics),
                    deadTokenHandlers: deadTokenHandlers
                )
            )
            let result = try await body(peers)
            await stop()
            return result
        } catch {
            await stop()
            throw error
        }
    }
}
