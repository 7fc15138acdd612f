public import Crypto
public import Foundation
import HeraldCore
import JWTKit
import Synchronization

/// Signs the VAPID credentials (RFC 8292) of the pushes of one application server key:
/// `Authorization: vapid t=<JWT>, k=<public key>`, one ES256 token per push service origin,
/// reused until it is within an hour of expiring, since a push service may rate-limit by token
/// and signing each push would cost a signature per message.
public final class VAPIDSigner: Sendable {
    /// What a token says expires: RFC 8292 §2 allows at most 24 hours; 12 leaves room for a push
    /// service whose clock is ahead.
    public static let validity: TimeInterval = 12 * 3600
    /// A token this close to its expiry is replaced.
    static let renewal: TimeInterval = 3600

    /// The key's public half, as `k=` carries it: base64url of the uncompressed point.
    public let publicKey: String
    /// `sub`: the operator's contact, `mailto:` or `https:`.
    public let subject: String
    private let key: ES256PrivateKey
    private let keys = JWTKeyCollection()
    private let keyAdded = Mutex(false)
    private let now: @Sendable () -> Date
    /// Origin → header value and the time it is renewed.
    private let cache = Mutex<[String: (authorization: String, renewAt: Date)]>([:])

    public init(key: P256.Signing.PrivateKey, subject: String, now: @escaping @Sendable () -> Date = Date.init) throws {
        self.key = try ES256PrivateKey(backing: key)
        self.publicKey = Base64URL.encode(key.publicKey.x963Representation)
        self.subject = subject
        self.now = now
    }

    /// The `Authorization` value for pushes to `origin` (`https://host[:port]`).
    public func authorization(origin: String) async throws -> String {
        let now = self.now()
        if let cached = self.cache.withLock({ $0[origin] }), now < cached.renewAt { return cached.authorization }
        if !self.keyAdded.withLock({ $0 }) {
            await self.keys.add(ecdsa: self.key)
            self.keyAdded.withLock { $0 = true }
        }
        // Whole seconds: RFC 7519's NumericDate may carry a fraction, but push services parse
        // `exp` as an integer (autopush refuses a float).
        let expiry = Date(timeIntervalSince1970: (now.timeIntervalSince1970 + Self.validity).rounded(.down))
        let claims = VAPIDClaims(aud: AudienceClaim(value: origin), exp: ExpirationClaim(value: expiry), sub: SubjectClaim(value: self.subject))
        let token = try await self.keys.sign(claims)
        let authorization = "vapid t=\(token), k=\(self.publicKey)"
        self.cache.withLock { cache in
            // Bounded by the hosts a provider talks to; cleared rather than grown past them.
            if cache.count >= 1024 { cache.removeAll() }
            cache[origin] = (authorization, expiry.addingTimeInterval(-Self.renewal))
        }
        return authorization
    }

    /// The key in a file: PEM (SEC 1 or PKCS #8, as `openssl ecparam -genkey` and py_vapid write
    /// it) or the base64url private scalar (as `web-push generate-vapid-keys` prints it).
    public static func key(fileContents text: String) -> P256.Signing.PrivateKey? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.hasPrefix("-----BEGIN") {
            return try? P256.Signing.PrivateKey(pemRepresentation: trimmed)
        }
        guard let raw = Base64URL.decode(trimmed, acceptingStandardAlphabet: true), raw.count == 32 else { return nil }
        return try? P256.Signing.PrivateKey(rawRepresentation: raw)
    }
}

/// RFC 8292 §2's claims: the push service's origin, an expiry, the operator's contact.
struct VAPIDClaims: JWTPayload {
    var aud: AudienceClaim
    var exp: ExpirationClaim
    var sub: SubjectClaim

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
