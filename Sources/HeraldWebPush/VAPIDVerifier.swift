import Crypto
public import Foundation
import HeraldConfig
import JWTKit

/// Checks a push's VAPID credentials (RFC 8292) against an allow-list: the `vapid t=…,k=…`
/// form of RFC 8292 (with or without a space, any case of the scheme), and the drafts' `WebPush`
/// (or `Bearer`) token with its key as `p256ecdsa` in `Crypto-Key`, as Mastodon's legacy
/// subscriptions send it.
public struct VAPIDVerifier: Sendable {
    /// Why a push's VAPID credentials are refused.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// No `Authorization` header, or no key: 401.
        case missing(String)
        /// A token or key that is malformed, badly signed, expired or not allowed: 403.
        case refused(String)

        public var description: String {
            switch self {
            case .missing(let detail), .refused(let detail): detail
            }
        }
    }

    /// The claims Herald checks; the signature check is JWTKit's.
    struct Claims: JWTPayload {
        var aud: AudienceClaim
        var exp: ExpirationClaim
        var sub: SubjectClaim?

        /// Checked by the verifier against its own clock, which the payload cannot see.
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// RFC 8292 §2: a token must expire within a day of the request. Mastodon asks for exactly
    /// a day, so a sender's clock a little ahead must not turn its pushes into 403s (and deleted
    /// subscriptions).
    static let longestValidity: TimeInterval = 24 * 3600
    static let clockSkew: TimeInterval = 600

    let keys: Set<[UInt8]>
    /// The relay's public origin, which `aud` must name.
    let audience: String

    public init(keys: some Sequence<[UInt8]>, audience: String) {
        self.keys = Set(keys)
        self.audience = audience
    }

    /// Verifies the credentials in `headers` (lower-cased names); returns the sender's public key.
    public func verify(headers: [String: [String]], now: Date) async throws(Failure) -> [UInt8] {
        guard let authorization = headers["authorization"]?.first?.trimmingSpaces, !authorization.isEmpty else {
            throw .missing("this relay takes pushes only with VAPID (RFC 8292): send Authorization: vapid t=<JWT>, k=<public key>")
        }
        let (token, keyText) = try Self.credentials(authorization: authorization, cryptoKey: headers["crypto-key"] ?? [])
        guard let key = RelayMessage.base64URL(keyText), key.count == 65, key.first == 4 else {
            throw .refused("the VAPID key is not an uncompressed P-256 public key (65 bytes) in base64url")
        }
        guard self.keys.contains(key) else { throw .refused("the VAPID key is not one this relay takes pushes from") }
        try Self.refuseCriticalExtensions(token)
        let claims: Claims
        do {
            let collection = JWTKeyCollection()
            await collection.add(ecdsa: try ES256PublicKey(backing: try P256.Signing.PublicKey(x963Representation: key)))
            claims = try await collection.verify(token, as: Claims.self)
        } catch {
            throw .refused("the VAPID token is not an ES256 JWT signed by its key")
        }
        let expiry = claims.exp.value.timeIntervalSince(now)
        guard expiry > 0 else { throw .refused("the VAPID token has expired") }
        guard expiry <= Self.longestValidity + Self.clockSkew else { throw .refused("the VAPID token expires more than 24 hours from now (RFC 8292 §2)") }
        guard claims.aud.value.contains(where: { Self.sameOrigin($0, self.audience) }) else {
            throw .refused("the VAPID token's aud \(claims.aud.value.first.map { "'\($0.prefix(100))'" } ?? "is empty"): it must be this push service's origin")
        }
        return key
    }

    /// The token and the key text of either form.
    static func credentials(authorization: String, cryptoKey: [String]) throws(Failure) -> (token: String, key: String) {
        let space = authorization.firstIndex(of: " ") ?? authorization.endIndex
        let scheme = authorization[..<space].lowercased()
        let rest = authorization[space...].trimmingSpaces
        switch scheme {
        case "vapid":
            var token: String?
            var key: String?
            for item in rest.split(separator: ",") {
                let parts = item.split(separator: "=", maxSplits: 1).map { $0.trimmingSpaces }
                guard parts.count == 2 else { continue }
                let name = parts[0].lowercased()
                guard name == "t" || name == "k" else { continue }
                // Two values for one name leave which one the sender meant unknown.
                guard (name == "t" ? token : key) == nil else {
                    throw .refused("Authorization: vapid has \(name)= twice; send each parameter once")
                }
                let value = try Self.authParameterValue(parts[1], name: name)
                if name == "t" { token = value } else { key = value }
            }
            guard let token, !token.isEmpty else { throw .refused("Authorization: vapid needs t=<JWT>") }
            guard let key, !key.isEmpty else { throw .missing("Authorization: vapid needs k=<public key>") }
            return (token, key)
        case "webpush", "bearer":
            guard !rest.isEmpty else { throw .refused("Authorization: \(scheme) needs a JWT") }
            guard let key = RelayMessage.parameters(cryptoKey)["p256ecdsa"] else {
                throw .missing("Authorization: WebPush needs the key as p256ecdsa=<public key> in Crypto-Key")
            }
            return (rest, key)
        default:
            throw .refused("Authorization scheme '\(scheme.prefix(20))' is not vapid or WebPush")
        }
    }

    /// An auth-param's value as a token or an RFC 9110 quoted-string (`t="…"` is as valid as
    /// `t=…`).
    static func authParameterValue(_ text: String, name: String) throws(Failure) -> String {
        guard text.hasPrefix("\"") else { return text }
        var value = ""
        var escaped = false
        var closed = false
        for character in text.dropFirst() {
            if closed { throw .refused("Authorization: vapid \(name)= has text after its closing quote") }
            if escaped {
                value.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "\"" {
                closed = true
            } else {
                value.append(character)
            }
        }
        guard closed else { throw .refused("Authorization: vapid \(name)= opens a quote it never closes") }
        return value
    }

    /// RFC 7515 §4.1.11: a recipient must refuse a JWS whose `crit` names an extension it does
    /// not understand, and Herald understands none. JWTKit does not look at `crit`.
    static func refuseCriticalExtensions(_ token: String) throws(Failure) {
        guard let end = token.firstIndex(of: "."),
            let bytes = RelayMessage.base64URL(String(token[..<end])),
            let header = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
        else {
            throw .refused("the VAPID token is not an ES256 JWT signed by its key")
        }
        if header["crit"] != nil {
            throw .refused("the VAPID token's header names critical extensions (crit) this relay does not understand (RFC 7515 §4.1.11)")
        }
    }

    /// Whether `audience` (`https://host[:port]`) names the origin `expected`; default ports are
    /// the same as none, and case does not matter.
    static func sameOrigin(_ audience: String, _ expected: String) -> Bool {
        func normalised(_ origin: String) -> String {
            var text = origin.lowercased()
            if text.hasSuffix("/") { text.removeLast() }
            for (scheme, port) in [("https://", ":443"), ("http://", ":80")] where text.hasPrefix(scheme) {
                if text.hasSuffix(port) { text.removeLast(port.count) }
            }
            return text
        }
        return normalised(audience) == normalised(expected)
    }
}
