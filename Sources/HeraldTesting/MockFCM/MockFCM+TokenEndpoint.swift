import Foundation
import NIOConcurrencyHelpers

extension MockFCM {
    static let jwtBearer = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    static let googleTokenURI = "https://oauth2.googleapis.com/token"

    /// `POST /token`: exchanges a signed JWT for an access token, checked in the order of fcm.md
    /// §6 items 1–3; the first failure answers.
    func exchange(contentType: String?, body: [UInt8]) -> MockFCMAnswer {
        self.shared.withLockedValue { $0.tokenRequests += 1 }
        guard let contentType, Self.mediaType(contentType) == "application/x-www-form-urlencoded" else {
            return .oauth(
                "invalid_request",
                "Content-Type must be application/x-www-form-urlencoded, got \(contentType.map { "\"\($0)\"" } ?? "none")."
            )
        }
        let form: [String: String]
        switch Self.form(body) {
        case .success(let parsed): form = parsed
        case .failure(let rejection): return .oauth("invalid_request", rejection.description)
        }
        guard let grantType = form["grant_type"] else {
            return .oauth("invalid_request", "Missing required parameter: grant_type")
        }
        // RFC 6749 §5.2 has its own code for a grant type the server does not do.
        guard grantType == Self.jwtBearer else {
            return .oauth("unsupported_grant_type", "Invalid grant_type: \"\(grantType)\"; only \(Self.jwtBearer) is supported.")
        }
        guard let assertion = form["assertion"], !assertion.isEmpty else {
            return .oauth("invalid_request", "Missing required parameter: assertion")
        }
        let now = self.configuration.now()
        do {
            _ = try MockFCMAssertion.verify(
                assertion,
                configuration: self.configuration,
                publicKey: self.publicKey,
                audiences: [Self.googleTokenURI, self.tokenURI, "https://127.0.0.1:\(self.port)/token"],
                now: now
            )
        } catch {
            return .oauth("invalid_grant", error.description)
        }
        let accessToken = Self.newAccessToken()
        let lifetime = self.shared.withLockedValue { shared in
            // Forget expired tokens here so a long benchmark with many refreshes stays small.
            shared.accessTokens = shared.accessTokens.filter { $0.value > now }
            shared.accessTokens[accessToken] = now.addingTimeInterval(TimeInterval(shared.accessTokenLifetime))
            shared.accessTokensIssued += 1
            return shared.accessTokenLifetime
        }
        return .granted(accessToken: accessToken, expiresIn: lifetime)
    }

    /// Whether `authorization` carries a live access token this mock issued.
    func isAuthorized(_ authorization: String?) -> Bool {
        guard let authorization, authorization.count > 7,
            authorization.prefix(7).lowercased() == "bearer "
        else { return false }
        let token = String(authorization.dropFirst(7))
        let now = self.configuration.now()
        return self.shared.withLockedValue { shared in
            guard let expiry = shared.accessTokens[token] else { return false }
            return expiry > now
        }
    }

    /// Google access tokens start `ya29.`; the rest is random and means nothing.
    static func newAccessToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let text = Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        return "ya29.mock." + text
    }

    /// The media type of a `Content-Type` value, lower-cased, without parameters.
    static func mediaType(_ contentType: String) -> String {
        String(contentType.prefix { $0 != ";" }).trimmingCharacters(in: .whitespaces).lowercased()
    }

    struct FormRejection: Error {
        var description: String
    }

    /// Parses an `application/x-www-form-urlencoded` body. A parameter sent twice is refused, as
    /// RFC 6749 §3.2 forbids it.
    static func form(_ body: [UInt8]) -> Result<[String: String], FormRejection> {
        guard let text = String(validating: body, as: UTF8.self) else {
            return .failure(FormRejection(description: "The form body is not UTF-8."))
        }
        var form: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ part: Substring) -> String? {
                part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
            }
            guard let name = decode(parts[0]), let value = parts.count == 2 ? decode(parts[1]) : "" else {
                return .failure(FormRejection(description: "The form has a malformed percent-encoding in \"\(pair.prefix(60))\"."))
            }
            guard form.updateValue(value, forKey: name) == nil else {
                return .failure(FormRejection(description: "Parameter \(name) is included more than once."))
            }
        }
        return .success(form)
    }
}
