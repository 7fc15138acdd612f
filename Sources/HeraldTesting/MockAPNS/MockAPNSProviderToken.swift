import Crypto
import Foundation

/// A provider token the mock has checked: the key it was signed with and when it was issued.
struct MockAPNSProviderToken: Sendable, Hashable {
    var keyID: String
    var teamID: String
    var issuedAt: Date

    enum Failure: Error {
        /// Malformed, unknown key or bad signature: `InvalidProviderToken`.
        case invalid
    }

    private struct Header: Decodable {
        var alg: String
        var kid: String
    }

    /// `iat` must be a JSON number: a string (as APNSwift sends) or a boolean is refused.
    private struct Claims: Decodable {
        var iss: String
        var iat: Double
    }

    /// Verifies `jwt` as APNs does: ES256 header with a `kid`, claims with `iss` and a numeric
    /// `iat`, and a signature by that key in raw `r‖s` or DER form (APNs takes both).
    static func verify(_ jwt: Substring, keys: [String: MockAPNS.SigningKey]) throws(Failure) -> MockAPNSProviderToken {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
            let headerData = Self.base64URL(parts[0]),
            let claimsData = Self.base64URL(parts[1]),
            let signatureData = Self.base64URL(parts[2]),
            let header = try? JSONDecoder().decode(Header.self, from: headerData),
            let claims = try? JSONDecoder().decode(Claims.self, from: claimsData),
            header.alg == "ES256",
            let key = keys[header.kid], key.teamID == claims.iss
        else { throw .invalid }

        let signature: P256.Signing.ECDSASignature
        if signatureData.count == 64, let raw = try? P256.Signing.ECDSASignature(rawRepresentation: signatureData) {
            signature = raw
        } else if let der = try? P256.Signing.ECDSASignature(derRepresentation: signatureData) {
            signature = der
        } else {
            throw .invalid
        }
        let signed = Data((parts[0] + "." + parts[1]).utf8)
        guard key.publicKey.isValidSignature(signature, for: signed) else { throw .invalid }
        return MockAPNSProviderToken(keyID: header.kid, teamID: claims.iss, issuedAt: Date(timeIntervalSince1970: claims.iat))
    }

    static func base64URL(_ text: Substring) -> Data? {
        guard !text.contains("=") else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}
