public import Crypto
public import Foundation

extension MockAPNS {
    public enum Environment: String, Sendable, Hashable {
        case production
        case sandbox
    }

    /// A signing key the mock knows, as APNs knows the keys of its developer accounts.
    public struct SigningKey: Sendable {
        public var keyID: String
        public var teamID: String
        public var publicKey: P256.Signing.PublicKey
        /// The environment the key is for; `nil` means both (legacy keys).
        public var environment: Environment?

        public init(keyID: String, teamID: String, publicKey: P256.Signing.PublicKey, environment: Environment? = nil) {
            self.keyID = keyID
            self.teamID = teamID
            self.publicKey = publicKey
            self.environment = environment
        }
    }

    public struct Configuration: Sendable {
        public var keys: [SigningKey]
        public var environment: Environment = .production
        /// Bundle ids a team may push to; a topic is allowed when it is one of them plus a push
        /// type suffix. Empty means every topic is allowed.
        public var topics: [String: Set<String>] = [:]
        /// APNs allows one stream on a token-auth connection until a request with a valid token
        /// arrives, then raises the limit.
        public var streamsBeforeAuthentication = 1
        public var streamsAfterAuthentication = 1000
        /// The mock's clock, for `iat` checks and token churn; tests move it forward.
        public var now: @Sendable () -> Date = Date.init
        /// Whether the App ID has the Broadcast capability (else `FeatureNotEnabled`).
        public var broadcastEnabled = true
        /// Channels an app may hold per environment (APNs: 10,000).
        public var maximumChannels = 10_000

        public init(keys: [SigningKey]) {
            self.keys = keys
        }
    }

    /// How the mock answers pushes to one device token, as APNs would for a token in that state.
    public enum TokenState: Sendable, Hashable {
        /// `410 Unregistered`, with `timestamp` (milliseconds) of when it became invalid.
        case unregistered(since: Date)
        /// `400 DeviceTokenNotForTopic`.
        case notForTopic
        /// `429 TooManyRequests`, optionally with `Retry-After` seconds.
        case throttled(retryAfterSeconds: Int?)
        /// Any status and reason, e.g. `500 InternalServerError` or `503 ServiceUnavailable`.
        case failing(status: Int, reason: String)
    }

    /// A push the mock accepted (answered 200).
    public struct AcceptedPush: Sendable, Hashable {
        public var apnsID: String
        public var token: String
        public var topic: String
        public var pushType: String?
        public var priority: String?
        public var expiration: String?
        public var collapseID: String?
        public var payload: [UInt8]
        public var keyID: String
        public var connection: Int
    }
}
