/// Why a relay request is refused, with the status RFC 8030 and the relay page give it
/// (webpush-relay.md §5.4). A 4xx makes Mastodon delete the subscription (all but 408 and 429),
/// so these are only for requests that can never be delivered.
public enum RelayError: Error, Equatable, CustomStringConvertible {
    case notARelayPath(String)
    case badDeviceToken(String)
    case badRegistrationToken(String)
    /// The path is well formed but no configured app serves it.
    case noSuchRelay(String)
    case unsupportedEncoding(String?)
    case missingTTL
    case badTTL(String)
    case badUrgency(String)
    case badTopic(String)
    case missingCryptoParameter(String)
    case badCryptoParameter(String, String)
    case bodyTooLarge(Int, limit: Int)

    /// The HTTP status of the answer.
    public var status: Int {
        switch self {
        case .notARelayPath, .badDeviceToken, .badRegistrationToken, .noSuchRelay: 404
        case .unsupportedEncoding: 415
        case .bodyTooLarge: 413
        case .missingTTL, .badTTL, .badUrgency, .badTopic, .missingCryptoParameter, .badCryptoParameter: 400
        }
    }

    public var description: String {
        switch self {
        case .notARelayPath(let path): "\(path) is not /relay-to/<environment>/<device token>[/<extra>]"
        case .badDeviceToken(let token): "'\(token)' is not an APNs device token (an even number of hex digits, at most 200)"
        case .badRegistrationToken(let token): "'\(token)' is not an FCM registration token"
        case .noSuchRelay(let detail): detail
        case .unsupportedEncoding(let encoding):
            "Content-Encoding \(encoding.map { "'\($0)'" } ?? "is missing"): only aes128gcm and aesgcm are relayed, still encrypted"
        case .missingTTL: "the TTL header is required (RFC 8030 §5.2)"
        case .badTTL(let value): "TTL '\(value)' is not a number of seconds"
        case .badUrgency(let value): "Urgency '\(value)' is not one of very-low, low, normal, high (RFC 8030 §5.3)"
        case .badTopic(let value): "Topic '\(value.prefix(64))' is not at most 32 characters of the base64url alphabet (RFC 8030 §5.4)"
        case .missingCryptoParameter(let name): "aesgcm needs \(name)"
        case .badCryptoParameter(let name, let problem): "\(name): \(problem)"
        case .bodyTooLarge(let size, let limit): "the body is \(size) bytes; at most \(limit) are taken"
        }
    }
}
