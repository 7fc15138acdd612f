import Crypto
import Foundation
import HeraldTesting
import Synchronization
import Testing

@testable import HeraldDelivery

@Suite struct APNSTokenManagerTests {
    /// Wall time (the token's `iat`) and the manager's clock (its age), moved together.
    final class FakeTime: Sendable {
        let seconds = Mutex<TimeInterval>(1_700_000_000.75)
        let clock = TestClock()
        var now: Date { Date(timeIntervalSince1970: self.seconds.withLock { $0 }) }
        func advance(minutes: Double) {
            self.seconds.withLock { $0 += minutes * 60 }
            self.clock.advance(by: .seconds(minutes * 60))
        }
    }

    let key = P256.Signing.PrivateKey()
    var credentials: APNSTokenManager.Credentials {
        .init(keyID: "ABC123DEFG", teamID: "DEF123GHIJ", privateKeyPEM: key.pemRepresentation)
    }

    @Test func tokenIsAnES256JWTOverTeamAndWholeSecondIssueTime() async throws {
        let time = FakeTime()
        let manager = try APNSTokenManager(credentials: credentials, clock: time.clock, now: { time.now })
        let token = try await manager.token()
        let parts = token.split(separator: ".").map(String.init)
        try #require(parts.count == 3)
        let header = try #require(try JSONSerialization.jsonObject(with: Self.base64URL(parts[0])) as? [String: Any])
        let claims = try #require(try JSONSerialization.jsonObject(with: Self.base64URL(parts[1])) as? [String: Any])
        #expect(header["alg"] as? String == "ES256")
        #expect(header["kid"] as? String == "ABC123DEFG")
        #expect(claims["iss"] as? String == "DEF123GHIJ")
        #expect((claims["iat"] as? NSNumber)?.doubleValue == 1_700_000_000, "iat must be whole seconds")
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: Self.base64URL(parts[2]))
        #expect(key.publicKey.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8)))
        #expect(try await manager.authorization() == "bearer " + token)
    }

    @Test func tokenIsReusedForFiftyMinutesThenReminted() async throws {
        let time = FakeTime()
        let manager = try APNSTokenManager(credentials: credentials, clock: time.clock, now: { time.now })
        let first = try await manager.token()
        time.advance(minutes: 49)
        #expect(try await manager.token() == first)
        time.advance(minutes: 1.5)
        #expect(try await manager.token() != first)
        #expect(await manager.mintCount == 2)
    }

    @Test func rejectionYoungerThanTwentyMinutesKeepsTheToken() async throws {
        let time = FakeTime()
        let manager = try APNSTokenManager(credentials: credentials, clock: time.clock, now: { time.now })
        let first = try await manager.token()
        time.advance(minutes: 5)
        #expect(try await manager.tokenRejected(first) == first)
        time.advance(minutes: 16)
        let second = try await manager.tokenRejected(first)
        #expect(second != first)
        // A late rejection of the old token does not mint a third.
        #expect(try await manager.tokenRejected(first) == second)
        #expect(await manager.mintCount == 2)
    }

    @Test func concurrentCallersShareOneMint() async throws {
        let manager = try APNSTokenManager(credentials: credentials)
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<50 { group.addTask { try await manager.token() } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(tokens.count == 1)
        #expect(await manager.mintCount == 1)
    }

    @Test func aKeyThatIsNotP256PEMFailsAtStart() {
        #expect(throws: (any Error).self) {
            try APNSTokenManager(credentials: .init(keyID: "K", teamID: "T", privateKeyPEM: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----"))
        }
    }

    static func base64URL(_ text: String) throws -> Data {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return try #require(Data(base64Encoded: base64))
    }
}
