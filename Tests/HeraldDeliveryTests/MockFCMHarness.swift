import Foundation
import HeraldCore
import HeraldTesting
import Logging
import NIOCore
import NIOPosix

@testable import HeraldDelivery

/// A mock FCM with one service account, and an `FCMProvider` that talks to it over real TLS and
/// HTTP/2 on 127.0.0.1, its token manager included. The token manager renews on `clock`, which
/// only the test moves; with `retriesOnTestClock` the endpoint's back-off and deadlines run on it
/// too.
struct MockFCMHarness {
    let mock: MockFCM
    let account: TestServiceAccount
    let endpoint: FCMProvider
    let group: MultiThreadedEventLoopGroup
    let clock: TestClock

    static func with<T>(
        configure: (inout FCMProvider.Configuration) -> Void = { _ in },
        signingAccount: TestServiceAccount? = nil,
        retriesOnTestClock: Bool = false,
        _ body: (MockFCMHarness) async throws -> T
    ) async throws -> T {
        let account = try TestServiceAccount(projectID: "herald-fcm")
        let mock = try await MockFCM.start(configuration: account.mockConfiguration())
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let signer = signingAccount ?? account
        let serviceAccount = try FCMServiceAccount(json: Data(signer.json(tokenURI: mock.tokenURI).utf8))
        let clock = TestClock()
        let tokens = try FCMTokenManager(serviceAccount: serviceAccount, trustRootsPEM: [mock.certificatePEM], group: group, clock: clock)
        var configuration = FCMProvider.Configuration(
            projectID: account.projectID,
            host: "127.0.0.1",
            port: mock.port,
            authority: "localhost",
            trustRootsPEM: [mock.certificatePEM]
        )
        configuration.backoff = Backoff(initial: .milliseconds(20), multiplier: 2, maximum: .milliseconds(200), jitter: 0)
        configure(&configuration)
        let endpoint = FCMProvider(
            configuration: configuration,
            tokens: tokens,
            group: group,
            logger: Logger(label: "test"),
            clock: retriesOnTestClock ? clock : ContinuousClock()
        )
        let harness = MockFCMHarness(mock: mock, account: account, endpoint: endpoint, group: group, clock: clock)
        do {
            let result = try await body(harness)
            await endpoint.shutdown()
            await mock.shutdown()
            try await group.shutdownGracefully()
            return result
        } catch {
            await endpoint.shutdown()
            await mock.shutdown()
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// `endpoint.send` with an untyped throw, which `#expect` can wrap.
    func send(_ push: PushNotification) async throws -> DeliveryOutcome {
        try await self.endpoint.send(push)
    }

    /// A token of the shape FCM issues.
    static func deviceToken(_ index: Int = 0) -> String {
        "fcm\(index):APA91b" + String(repeating: "x", count: 140)
    }

    static func notification(token: String = deviceToken(), payload: String = #"{"data":{"k":"v"}}"#) -> PushNotification {
        PushNotification(
            id: UUID().uuidString.lowercased(),
            device: Device(platform: .fcm, token: token),
            payload: Array(payload.utf8)
        )
    }
}
