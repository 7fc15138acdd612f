import Crypto
import Foundation
import HeraldCore
import HeraldTesting
import NIOCore
import NIOHPACK
import NIOPosix
import Synchronization

@testable import HeraldDelivery

/// A mock APNs with one known signing key, and a client side (token manager, connections) that
/// talks to it over real TLS and HTTP/2 on 127.0.0.1.
struct MockAPNSHarness {
    static let keyID = "ABC123DEFG"
    static let teamID = "DEF123GHIJ"
    static let topic = "im.herald.app"

    /// Wall time as the mock and the token's `iat` see it, and the token manager's clock,
    /// moved together.
    final class Clock: Sendable {
        let seconds = Mutex<TimeInterval>(Date().timeIntervalSince1970)
        let tokens = TestClock()
        var now: Date { Date(timeIntervalSince1970: self.seconds.withLock { $0 }) }
        func advance(minutes: Double) {
            self.seconds.withLock { $0 += minutes * 60 }
            self.tokens.advance(by: .seconds(minutes * 60))
        }
    }

    let mock: MockAPNS
    let key: P256.Signing.PrivateKey
    let tokens: APNSTokenManager
    let clock: Clock
    let group: MultiThreadedEventLoopGroup

    static func with<T>(
        configure: (inout MockAPNS.Configuration) -> Void = { _ in },
        _ body: (MockAPNSHarness) async throws -> T
    ) async throws -> T {
        let key = P256.Signing.PrivateKey()
        let clock = Clock()
        var configuration = MockAPNS.Configuration(keys: [.init(keyID: keyID, teamID: teamID, publicKey: key.publicKey)])
        configuration.now = { clock.now }
        configure(&configuration)
        let mock = try await MockAPNS.start(configuration: configuration)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let harness = MockAPNSHarness(
            mock: mock,
            key: key,
            tokens: try APNSTokenManager(
                credentials: .init(keyID: keyID, teamID: teamID, privateKeyPEM: key.pemRepresentation),
                clock: clock.tokens,
                now: { clock.now }
            ),
            clock: clock,
            group: group
        )
        do {
            let result = try await body(harness)
            try await mock.shutdown()
            try await group.shutdownGracefully()
            return result
        } catch {
            try? await mock.shutdown()
            try? await group.shutdownGracefully()
            throw error
        }
    }

    func connect(codec: HTTP2Codec = .nio) async throws -> HTTP2Connection {
        var configuration = try HTTP2Connection.Configuration(
            host: "127.0.0.1",
            port: self.mock.port,
            authority: "localhost",
            trustRootsPEM: [self.mock.certificatePEM]
        )
        configuration.codec = codec
        return try await HTTP2Connection.connect(configuration, group: self.group)
    }

    static func notification(
        token: String = String(repeating: "a1", count: 32),
        payload: String = #"{"aps":{"alert":"hello"}}"#,
        pushType: String? = nil,
        topic: String = topic
    ) -> PushNotification {
        PushNotification(
            id: UUID().uuidString.lowercased(),
            device: Device(platform: .apns, token: token, topic: topic),
            payload: Array(payload.utf8),
            priority: .immediate,
            pushType: pushType
        )
    }

    /// Sends a notification the way the delivery pool will: checked request, current token.
    func send(_ notification: PushNotification, on connection: HTTP2Connection) async throws -> APNSResponse {
        let request = try APNSRequest(notification, defaultTopic: nil)
        return try await self.sendRaw(request.headerBlock(authority: connection.authority, authorization: try await self.tokens.authorization()), body: request.body, on: connection)
    }

    func sendRaw(_ headers: HPACKHeaders, body: [UInt8], on connection: HTTP2Connection) async throws -> APNSResponse {
        try await self.sendRaw(HTTP2Fields(headers), body: body, on: connection)
    }

    func sendRaw(_ headers: HTTP2Fields, body: [UInt8], on connection: HTTP2Connection) async throws -> APNSResponse {
        APNSResponse(try await connection.send(headers: headers, body: body, deadline: TestTime.bound(.seconds(30))))
    }
}
