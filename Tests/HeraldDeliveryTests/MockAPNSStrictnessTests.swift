import Crypto
import Foundation
import HeraldCore
@testable import HeraldTesting
import NIOHPACK
import Testing

@testable import HeraldDelivery

/// The mock refuses what APNs refuses, with APNs' status and reason (apns.md §8).
@Suite struct MockAPNSStrictnessTests {
    enum Mutation: Sendable, CustomStringConvertible {
        case set(String, String)
        case remove(String)
        case duplicate(String)
        case body(String)

        var description: String {
            switch self {
            case .set(let name, let value): "\(name)=\(value.prefix(20))"
            case .remove(let name): "no \(name)"
            case .duplicate(let name): "twice \(name)"
            case .body(let body): "body \(body.prefix(20))"
            }
        }
    }

    static let cases: [(Mutation, Int, String)] = [
        (.set("apns-id", "not-a-uuid"), 400, "BadMessageId"),
        (.set(":method", "GET"), 405, "MethodNotAllowed"),
        (.duplicate("apns-topic"), 400, "DuplicateHeaders"),
        (.set(":path", "/3/device/"), 400, "MissingDeviceToken"),
        (.set(":path", "/2/device/" + String(repeating: "a", count: 64)), 404, "BadPath"),
        (.set(":path", "/3/device/abc"), 400, "BadDeviceToken"),
        (.remove("authorization"), 403, "MissingProviderToken"),
        (.set("authorization", "bearer a.b.c"), 403, "InvalidProviderToken"),
        (.set("authorization", "Basic abc"), 403, "MissingProviderToken"),
        (.remove("apns-topic"), 400, "MissingTopic"),
        (.set("apns-push-type", "banner"), 400, "InvalidPushType"),
        (.set("apns-push-type", "voip"), 400, "BadTopic"),
        (.set("apns-priority", "7"), 400, "BadPriority"),
        (.set("apns-expiration", "soon"), 400, "BadExpirationDate"),
        (.set("apns-collapse-id", String(repeating: "x", count: 65)), 400, "BadCollapseId"),
        (.body(""), 400, "PayloadEmpty"),
        (.body("{\"a\":\"" + String(repeating: "x", count: 4100) + "\"}"), 413, "PayloadTooLarge"),
        (.body("[1,2,3]"), 400, "BadPayload"),
    ]

    @Test(arguments: Self.cases)
    func malformedRequestGetsAPNsAnswer(mutation: Mutation, status: Int, reason: String) async throws {
        try await MockAPNSHarness.with { harness in
            let connection = try await harness.connect()
            let request = try APNSRequest(MockAPNSHarness.notification(), defaultTopic: nil)
            var headers = request.headerBlock(authority: connection.authority, authorization: try await harness.tokens.authorization()).hpackHeaders
            var body = request.body
            switch mutation {
            case .set(let name, let value):
                headers = Self.replacing(name, with: value, in: headers)
            case .remove(let name):
                headers.remove(name: name)
            case .duplicate(let name):
                headers.add(name: name, value: headers.first(name: name) ?? "x")
            case .body(let text):
                body = Array(text.utf8)
            }
            headers = Self.replacing("content-length", with: String(body.count), in: headers)
            let response = try await harness.sendRaw(headers, body: body, on: connection)
            #expect(response.status == status, "\(mutation)")
            #expect(response.reason?.rawValue == reason, "\(mutation)")
            #expect(harness.mock.accepted.isEmpty)
            await connection.close()
        }
    }

    /// Replaces a header's value where it stands: pseudo-headers must stay ahead of the others.
    static func replacing(_ name: String, with value: String, in headers: HPACKHeaders) -> HPACKHeaders {
        var result = HPACKHeaders()
        var found = false
        for (existing, existingValue, _) in headers {
            if existing == name {
                if !found { result.add(name: name, value: value) }
                found = true
            } else {
                result.add(name: existing, value: existingValue)
            }
        }
        if !found { result.add(name: name, value: value) }
        return result
    }

    @Test func backgroundAtPriorityTenIsRefused() async throws {
        try await MockAPNSHarness.with { harness in
            let connection = try await harness.connect()
            let request = try APNSRequest(MockAPNSHarness.notification(pushType: "background"), defaultTopic: nil)
            var headers = request.headerBlock(authority: connection.authority, authorization: try await harness.tokens.authorization()).hpackHeaders
            headers.replaceOrAdd(name: "apns-priority", value: "10")
            #expect(try await harness.sendRaw(headers, body: request.body, on: connection).reason == .badPriority)
            await connection.close()
        }
    }

    @Test func tokenSignedByAnUnknownKeyIsInvalid() async throws {
        try await MockAPNSHarness.with { harness in
            let stranger = try APNSTokenManager(
                credentials: .init(keyID: MockAPNSHarness.keyID, teamID: MockAPNSHarness.teamID, privateKeyPEM: P256.Signing.PrivateKey().pemRepresentation)
            )
            let connection = try await harness.connect()
            let request = try APNSRequest(MockAPNSHarness.notification(), defaultTopic: nil)
            let headers = request.headerBlock(authority: connection.authority, authorization: try await stranger.authorization())
            #expect(try await harness.sendRaw(headers, body: request.body, on: connection).reason == .invalidProviderToken)
            await connection.close()
        }
    }

    @Test func tokenOlderThanAnHourHasExpired() async throws {
        try await MockAPNSHarness.with { harness in
            let connection = try await harness.connect()
            let authorization = try await harness.tokens.authorization()
            harness.clock.advance(minutes: 61)
            let request = try APNSRequest(MockAPNSHarness.notification(), defaultTopic: nil)
            let headers = request.headerBlock(authority: connection.authority, authorization: authorization)
            let response = try await harness.sendRaw(headers, body: request.body, on: connection)
            #expect(response.reason == .expiredProviderToken)
            #expect(response.decision == .retry(reason: "ExpiredProviderToken", after: nil, then: .refreshToken))
            await connection.close()
        }
    }

    @Test func aSecondTokenChangeWithinTwentyMinutesIsThrottled() async throws {
        try await MockAPNSHarness.with { harness in
            let connection = try await harness.connect()
            #expect(try await harness.send(MockAPNSHarness.notification(), on: connection).status == 200)
            func send(withTokenMintedAfter minutes: Double) async throws -> APNSResponse {
                harness.clock.advance(minutes: minutes)
                let minter = try APNSTokenManager(
                    credentials: .init(keyID: MockAPNSHarness.keyID, teamID: MockAPNSHarness.teamID, privateKeyPEM: harness.key.pemRepresentation),
                    now: { harness.clock.now }
                )
                let request = try APNSRequest(MockAPNSHarness.notification(), defaultTopic: nil)
                let headers = request.headerBlock(authority: connection.authority, authorization: try await minter.authorization())
                return try await harness.sendRaw(headers, body: request.body, on: connection)
            }
            // The first change on a connection is allowed; a second within 20 minutes is not.
            #expect(try await send(withTokenMintedAfter: 5).status == 200)
            #expect(try await send(withTokenMintedAfter: 5).reason == .tooManyProviderTokenUpdates)
            // Twenty minutes after the last change, a new token is fine again.
            #expect(try await send(withTokenMintedAfter: 21).status == 200)
            await connection.close()
        }
    }

    @Test func derSignaturesAreAcceptedToo() throws {
        let key = P256.Signing.PrivateKey()
        let header = Data(#"{"alg":"ES256","kid":"K1"}"#.utf8).base64URL
        let claims = Data(#"{"iss":"T1","iat":1700000000}"#.utf8).base64URL
        let signature = try key.signature(for: Data((header + "." + claims).utf8)).derRepresentation.base64URL
        let jwt = header + "." + claims + "." + signature
        let verified = try MockAPNSProviderToken.verify(Substring(jwt), keys: ["K1": .init(keyID: "K1", teamID: "T1", publicKey: key.publicKey)])
        #expect(verified.teamID == "T1")
        #expect(verified.issuedAt == Date(timeIntervalSince1970: 1_700_000_000))
    }
}

extension Data {
    var base64URL: String {
        self.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
