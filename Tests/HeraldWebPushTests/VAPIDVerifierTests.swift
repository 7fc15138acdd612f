import Crypto
import Foundation
import HeraldWebPush
import JWTKit
import Testing

/// VAPID (RFC 8292) as the relay's allow-list checks it: both header forms, the key, the
/// signature, `exp` and `aud`.
@Suite struct VAPIDVerifierTests {
    struct Claims: JWTPayload {
        var aud: AudienceClaim
        var exp: ExpirationClaim
        var sub: SubjectClaim
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    let key = P256.Signing.PrivateKey()

    var publicKey: [UInt8] { Array(self.key.publicKey.x963Representation) }
    var keyText: String { Self.base64URL(self.publicKey) }

    func token(aud: String = "https://relay.example", expiresIn seconds: TimeInterval = 12 * 3600, signer: P256.Signing.PrivateKey? = nil, header: JWTHeader = ["typ": "JWT"]) async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: try ES256PrivateKey(backing: signer ?? self.key))
        let claims = Claims(aud: .init(value: aud), exp: .init(value: Self.now.addingTimeInterval(seconds)), sub: .init(value: "mailto:admin@m.example"))
        return try await keys.sign(claims, header: header)
    }

    func verify(_ headers: [String: [String]], audience: String = "https://relay.example", now: Date = Self.now) async throws(VAPIDVerifier.Failure) -> [UInt8] {
        try await VAPIDVerifier(keys: [self.publicKey], audience: audience).verify(headers: headers, now: now)
    }

    @Test func rfc8292FormWithAndWithoutSpaceAndAnyCase() async throws {
        let token = try await self.token()
        for header in ["vapid t=\(token), k=\(self.keyText)", "vapid t=\(token),k=\(self.keyText)", "VAPID k=\(self.keyText), t=\(token)"] {
            #expect(try await self.verify(["authorization": [header]]) == self.publicKey, "\(header.prefix(8))")
        }
    }

    @Test func legacyWebPushFormTakesTheKeyFromCryptoKey() async throws {
        let token = try await self.token()
        let headers = ["authorization": ["WebPush \(token)"], "crypto-key": ["dh=BAAA;p256ecdsa=\(self.keyText)"]]
        #expect(try await self.verify(headers) == self.publicKey)
        await #expect(throws: VAPIDVerifier.Failure.self) { try await self.verify(["authorization": ["WebPush \(token)"]]) }
    }

    @Test func missingAuthorizationIsMissing() async throws {
        do {
            _ = try await self.verify([:])
            Issue.record("taken without VAPID")
        } catch {
            guard case .missing = error else { Issue.record("\(error)"); return }
        }
    }

    @Test func keyNotInTheListIsRefused() async throws {
        let other = P256.Signing.PrivateKey()
        let token = try await self.token(signer: other)
        await #expect(throws: VAPIDVerifier.Failure.refused("the VAPID key is not one this relay takes pushes from")) {
            try await self.verify(["authorization": ["vapid t=\(token),k=\(Self.base64URL(Array(other.publicKey.x963Representation)))"]])
        }
    }

    @Test func tokenSignedByAnotherKeyIsRefused() async throws {
        let token = try await self.token(signer: P256.Signing.PrivateKey())
        await #expect(throws: VAPIDVerifier.Failure.refused("the VAPID token is not an ES256 JWT signed by its key")) {
            try await self.verify(["authorization": ["vapid t=\(token),k=\(self.keyText)"]])
        }
    }

    @Test func expiredOrTooLongLivedTokensAreRefused() async throws {
        let expired = try await self.token(expiresIn: -10)
        await #expect(throws: VAPIDVerifier.Failure.refused("the VAPID token has expired")) {
            try await self.verify(["authorization": ["vapid t=\(expired),k=\(self.keyText)"]])
        }
        let tooLong = try await self.token(expiresIn: 25 * 3600)
        await #expect(throws: VAPIDVerifier.Failure.refused("the VAPID token expires more than 24 hours from now (RFC 8292 §2)")) {
            try await self.verify(["authorization": ["vapid t=\(tooLong),k=\(self.keyText)"]])
        }
    }

    @Test func mastodonsExactDayIsTakenFromAClockAFewMinutesAhead() async throws {
        // Mastodon signs exp = its now + 24 h; its clock runs 5 minutes ahead of the relay's.
        let token = try await self.token(expiresIn: 24 * 3600)
        let headers = ["authorization": ["vapid t=\(token),k=\(self.keyText)"]]
        #expect(try await self.verify(headers, now: Self.now.addingTimeInterval(-300)) == self.publicKey)
    }

    @Test func audienceMustNameThisOrigin() async throws {
        let token = try await self.token(aud: "https://relay.example")
        let headers = ["authorization": ["vapid t=\(token),k=\(self.keyText)"]]
        #expect(try await self.verify(headers, audience: "https://relay.example:443/") == self.publicKey, "default port, trailing slash")
        #expect(try await self.verify(headers, audience: "HTTPS://Relay.Example") == self.publicKey, "case")
        for other in ["https://other.example", "http://relay.example", "https://relay.example:8443"] {
            await #expect(throws: VAPIDVerifier.Failure.refused("the VAPID token's aud 'https://relay.example': it must be this push service's origin"), "\(other)") {
                try await self.verify(headers, audience: other)
            }
        }
    }

    @Test func quotedParameterValuesAreTaken() async throws {
        // RFC 9110 §11.2: an auth-param's value is a token or a quoted-string; a 403 here would
        // make Mastodon delete the subscription.
        let token = try await self.token()
        for header in ["vapid t=\"\(token)\", k=\"\(self.keyText)\"", "vapid t=\(token), k=\"\(self.keyText)\""] {
            #expect(try await self.verify(["authorization": [header]]) == self.publicKey, "\(header.prefix(12))")
        }
        await #expect(throws: VAPIDVerifier.Failure.refused("Authorization: vapid k= opens a quote it never closes")) {
            try await self.verify(["authorization": ["vapid t=\(token), k=\"\(self.keyText)"]])
        }
    }

    @Test func aParameterGivenTwiceIsRefused() async throws {
        let token = try await self.token()
        let other = try await self.token(aud: "https://other.example")
        await #expect(throws: VAPIDVerifier.Failure.refused("Authorization: vapid has t= twice; send each parameter once")) {
            try await self.verify(["authorization": ["vapid t=\(other), k=\(self.keyText), t=\(token)"]])
        }
        await #expect(throws: VAPIDVerifier.Failure.refused("Authorization: vapid has k= twice; send each parameter once")) {
            try await self.verify(["authorization": ["vapid k=\(self.keyText), t=\(token), K=\(self.keyText)"]])
        }
    }

    @Test func aCriticalExtensionIsRefused() async throws {
        var header: JWTHeader = ["typ": "JWT"]
        header.crit = ["urn:example:unknown"]
        let token = try await self.token(header: header)
        await #expect(throws: VAPIDVerifier.Failure.refused("the VAPID token's header names critical extensions (crit) this relay does not understand (RFC 7515 §4.1.11)")) {
            try await self.verify(["authorization": ["vapid t=\(token), k=\(self.keyText)"]])
        }
    }

    @Test(arguments: ["Basic dXNlcjpwYXNz", "vapid k=BAAA", "vapid t=abc.def.ghi,k=not-a-key", "Bearer"])
    func malformedCredentialsAreRefused(header: String) async throws {
        await #expect(throws: VAPIDVerifier.Failure.self) { try await self.verify(["authorization": [header]]) }
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
