import Foundation
public import HeraldCore
public import Logging
public import NIOCore

/// Delivers notifications to FCM HTTP v1 for one Firebase project. Connections, admission,
/// retries and deadlines are the `ConnectionPool`'s; FCM v1 has no batch call, so throughput
/// comes from concurrent streams on those connections.
public struct FCMProvider: Sendable {
    @dynamicMemberLookup
    public struct Configuration: Sendable {
        public var endpoint: ConnectionPool.Configuration
        /// The project id (or number) in the send path; the service account's by default.
        public var projectID: String

        public init(projectID: String, host: String = "fcm.googleapis.com", port: Int = 443, authority: String? = nil, trustRootsPEM: [String]? = nil) {
            self.projectID = projectID
            self.endpoint = ConnectionPool.Configuration(host: host, port: port, authority: authority, trustRootsPEM: trustRootsPEM)
            // fcm.md §4.2: back off from a second for UNAVAILABLE and INTERNAL, not APNs' 200 ms.
            self.endpoint.backoff = Backoff(initial: .seconds(1), multiplier: 2, maximum: .seconds(30), jitter: 0.2)
        }

        public subscript<Value>(dynamicMember keyPath: WritableKeyPath<ConnectionPool.Configuration, Value>) -> Value {
            get { self.endpoint[keyPath: keyPath] }
            set { self.endpoint[keyPath: keyPath] = newValue }
        }
    }

    public let configuration: Configuration
    public let tokens: FCMTokenManager
    let pool: ConnectionPool

    /// `clock` times deadlines and back-off.
    public init(
        configuration: Configuration,
        tokens: FCMTokenManager,
        group: any EventLoopGroup,
        logger: Logger,
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.configuration = configuration
        self.tokens = tokens
        self.pool = ConnectionPool(
            provider: "FCM",
            configuration: configuration.endpoint,
            credentials: tokens,
            group: group,
            logger: logger,
            clock: clock
        )
    }

    /// Google Cloud project ids and numbers, legacy domain-scoped ids (`example.com:name`)
    /// included. It becomes part of `:path`, which the HTTP/2 layer sends unchecked.
    public static func isValidProjectID(_ id: String) -> Bool {
        (1...100).contains(id.utf8.count)
            && id.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
                case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: ":"): true
                default: false
                }
            }
    }

    /// Delivers each notification; first attempts leave together. A notification that is no
    /// valid request ends as the provider would answer it, without being sent.
    public func send(all notifications: [PushNotification]) async -> [DeliveryResult] {
        let now = Int64(Date().timeIntervalSince1970)
        // Pushes of one payload and options (a request's tokens) share their message.
        var shared: FCMMessage?
        return await self.pool.send(all: notifications) { notification throws(FCMRequestError) in
            let message: FCMMessage
            if let shared, shared.fits(notification, now: now) {
                message = shared
            } else {
                message = try FCMMessage(notification, now: now)
                shared = message
            }
            return try FCMRequest(notification, projectID: self.configuration.projectID, message: message)
        }
    }

    /// Closes every connection, the token endpoint's included; later `send` calls are refused.
    public func shutdown() async {
        await self.pool.shutdown()
        await self.tokens.shutdown()
    }
}
