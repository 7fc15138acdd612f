import Foundation
import HeraldCore
import _CryptoExtras

/// A JWT-bearer assertion the token endpoint has checked as Google's does (fcm.md §1.2, §6 item
/// 2): RS256 by the service account's key, its `client_email` as `iss`, the token URI as `aud`,
/// an FCM scope, and at most an hour between `iat` and `exp`.
struct MockFCMAssertion: Sendable, Hashable {
    var issuer: String
    var scopes: [String]
    var issuedAt: Date
    var expiresAt: Date

    /// Why an assertion was refused; the token endpoint sends it as `error_description`.
    struct Rejection: Error, Hashable {
        var description: String
    }

    static let scopes: Set<String> = [
        "https://www.googleapis.com/auth/firebase.messaging",
        "https://www.googleapis.com/auth/cloud-platform",
    ]
    /// Google's `iat` tolerance for a signer's clock running ahead.
    static let allowedSkew: TimeInterval = 60
    static let maximumLifetime: TimeInterval = 3600
    /// Google's own wording for a bad `iat`/`exp`; the mock appends what exactly is wrong.
    static let timeframe = "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe."

    static func verify(
        _ jwt: String,
        configuration: MockFCM.Configuration,
        publicKey: _RSA.Signing.PublicKey,
        audiences: Set<String>,
        now: Date
    ) throws(Rejection) -> MockFCMAssertion {
        func reject(_ description: String) -> Rejection { Rejection(description: description) }

        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw reject("Invalid JWT: the assertion must be three base64url parts joined by dots, got \(parts.count).")
        }
        guard let headerData = MockAPNSProviderToken.base64URL(parts[0]),
            case .object(let header)? = try? JSONDecoder().decode(JSONValue.self, from: headerData)
        else { throw reject("Invalid JWT: the header is not base64url-encoded JSON object.") }
        guard let algorithm = Self.string(header, "alg"), algorithm == "RS256" else {
            throw reject("Invalid JWT: header alg must be \"RS256\", got \(Self.describe(Self.value(header, "alg"))).")
        }
        if let expected = configuration.privateKeyID, let keyID = Self.value(header, "kid") {
            guard case .string(expected) = keyID else {
                throw reject("Invalid JWT: header kid \(Self.describe(keyID)) is not the service account's private_key_id \"\(expected)\".")
            }
        }

        guard let signature = MockAPNSProviderToken.base64URL(parts[2]), !signature.isEmpty else {
            throw reject("Invalid JWT Signature: the signature part is empty or not base64url.")
        }
        let signed = Data((parts[0] + "." + parts[1]).utf8)
        guard publicKey.isValidSignature(.init(rawRepresentation: signature), for: signed, padding: .insecurePKCS1v1_5) else {
            throw reject("Invalid JWT Signature: not an RS256 (RSASSA-PKCS1-v1_5 SHA-256) signature by the service account's key.")
        }

        guard let claimsData = MockAPNSProviderToken.base64URL(parts[1]),
            case .object(let claims)? = try? JSONDecoder().decode(JSONValue.self, from: claimsData)
        else { throw reject("Invalid JWT: the claim set is not base64url-encoded JSON object.") }
        guard let issuer = Self.string(claims, "iss"), issuer == configuration.clientEmail else {
            throw reject(
                "Invalid JWT: iss \(Self.describe(Self.value(claims, "iss"))) is not the service account's client_email \"\(configuration.clientEmail)\"."
            )
        }
        guard let audience = Self.string(claims, "aud"), audiences.contains(audience) else {
            throw reject(
                "Invalid JWT: aud \(Self.describe(Self.value(claims, "aud"))) is not a token URI (\(audiences.sorted().joined(separator: ", ")))."
            )
        }
        guard let scope = Self.string(claims, "scope") else {
            throw reject("Invalid JWT: scope must be a space-separated string, got \(Self.describe(Self.value(claims, "scope"))).")
        }
        let scopes = scope.split(separator: " ").map(String.init)
        guard scopes.contains(where: Self.scopes.contains) else {
            throw reject("Invalid OAuth scope: \"\(scope)\" has neither \(Self.scopes.sorted().joined(separator: " nor ")).")
        }
        guard case .number(let iat)? = Self.value(claims, "iat"), case .number(let exp)? = Self.value(claims, "exp") else {
            throw reject("\(Self.timeframe) iat and exp must be JSON numbers (UNIX seconds).")
        }
        guard exp > iat, exp - iat <= Self.maximumLifetime else {
            throw reject("\(Self.timeframe) exp − iat is \(Int(exp - iat)) s; it must be above 0 and at most 3600.")
        }
        guard iat <= now.timeIntervalSince1970 + Self.allowedSkew else {
            throw reject("\(Self.timeframe) iat is \(Int(iat - now.timeIntervalSince1970)) s in the future.")
        }
        guard exp > now.timeIntervalSince1970 else {
            throw reject("\(Self.timeframe) exp has passed, \(Int(now.timeIntervalSince1970 - exp)) s ago.")
        }
        return MockFCMAssertion(
            issuer: issuer,
            scopes: scopes,
            issuedAt: Date(timeIntervalSince1970: iat),
            expiresAt: Date(timeIntervalSince1970: exp)
        )
    }

    /// The last value for `key`: a repeated JSON key's last value wins, as in Google's parsers.
    static func value(_ object: [(String, JSONValue)], _ key: String) -> JSONValue? {
        object.last { $0.0 == key }?.1
    }

    static func string(_ object: [(String, JSONValue)], _ key: String) -> String? {
        guard case .string(let text)? = Self.value(object, key) else { return nil }
        return text
    }

    /// A claim as the error text shows it: its JSON, or "nothing" when absent.
    static func describe(_ value: JSONValue?) -> String {
        guard let value else { return "nothing" }
        return String(decoding: value.bytes.prefix(200), as: UTF8.self)
    }
}
