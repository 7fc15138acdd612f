public import HeraldCore
public import Logging
public import NIOCore

/// Delivers notifications to one APNs endpoint (host and signing key or client certificate).
/// Connections, admission, retries and deadlines are the `ConnectionPool`'s; this type adds
/// what is APNs' own: the request format, the reason table and the app's default topic.
public struct APNSProvider: Sendable {
    @dynamicMemberLookup
    public struct Configuration: Sendable {
        public var endpoint: ConnectionPool.Configuration
        /// Topic used when a device names none.
        public var defaultTopic: String?
        /// The APNs environment the app's configuration names (its host may be a test peer's).
        public var environment: APNSAppConfiguration.Environment = .production
        /// The channel management host of iOS 18 broadcast; `nil`: channels cannot be managed.
        public var channelEndpoint: ConnectionPool.Configuration?

        public init(host: String, port: Int = 443, authority: String? = nil, trustRootsPEM: [String]? = nil) {
            self.endpoint = ConnectionPool.Configuration(host: host, port: port, authority: authority, trustRootsPEM: trustRootsPEM)
        }

        public subscript<Value>(dynamicMember keyPath: WritableKeyPath<ConnectionPool.Configuration, Value>) -> Value {
            get { self.endpoint[keyPath: keyPath] }
            set { self.endpoint[keyPath: keyPath] = newValue }
        }

        public static let production = Configuration(host: "api.push.apple.com")
        public static let sandbox = Configuration(host: "api.sandbox.push.apple.com")
    }

    public let configuration: Configuration
    let pool: ConnectionPool
    /// To the channel management host, with the same credentials; it connects on first use.
    let channelPool: ConnectionPool?

    /// `tokens` is `nil` with certificate authentication (the client certificate is in
    /// `configuration.endpoint`). `clock` times deadlines and back-off.
    public init(
        configuration: Configuration,
        tokens: APNSTokenManager?,
        group: any EventLoopGroup,
        logger: Logger,
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.configuration = configuration
        self.pool = ConnectionPool(
            provider: "APNs",
            configuration: configuration.endpoint,
            credentials: tokens,
            group: group,
            logger: logger,
            clock: clock
        )
        self.channelPool = configuration.channelEndpoint.map { endpoint in
            ConnectionPool(provider: "APNs channels", configuration: endpoint, credentials: tokens, group: group, logger: logger, clock: clock)
        }
    }

    /// Creates, reads, deletes or lists broadcast channels (`APNSChannelRequest.create` …); the
    /// answer is in `DeliveryResult.answer`.
    public func manageChannels(_ request: APNSChannelRequest) async -> DeliveryResult {
        guard let channelPool = self.channelPool else {
            return DeliveryResult(.success(.failed(DeliveryFailure(.other, "this APNs provider has no channel management host"))), duration: .zero)
        }
        return await channelPool.send(all: [(request: request, deadline: nil)])[0]
    }

    /// Sends a broadcast (`APNSChannelRequest.broadcast`) on the device connections.
    public func broadcast(_ request: APNSChannelRequest) async -> DeliveryResult {
        await self.pool.send(all: [(request: request, deadline: nil)])[0]
    }

    /// Delivers each notification; first attempts leave together. A notification that is no
    /// valid request ends as the provider would answer it, without being sent.
    public func send(all notifications: [PushNotification]) async -> [DeliveryResult] {
        await self.pool.send(all: notifications) { notification throws(APNSRequestError) in try APNSRequest(notification, defaultTopic: self.configuration.defaultTopic) }
    }

    /// Closes every connection; later `send` calls are refused.
    public func shutdown() async {
        await self.pool.shutdown()
        await self.channelPool?.shutdown()
    }
}
