public import HeraldConfig
public import HeraldCore
public import Logging
public import NIOCore

/// One provider of one app: it turns notifications into the provider's requests and delivers
/// them. The pool keys providers by app and platform and knows nothing else of them, so a new
/// provider is a new conforming type, not a branch in the pool, the metrics or shutdown.
public protocol PushProvider: Sendable {
    /// The provider's name as a metric label: `apns`, `fcm`.
    var name: String { get }
    /// The devices it delivers to.
    var platform: Platform { get }
    /// Whether notifications addressed to `topic` belong to this provider's app (APNs: its bundle
    /// id, or the bundle id with a push-type suffix).
    func serves(topic: String) -> Bool
    /// Delivers every notification, in order: each ends in an outcome, or in an `AdmissionError`
    /// when it was not admitted (queue full, shutting down). One push is a batch of one.
    func send(all notifications: [PushNotification]) async -> [DeliveryResult]
    /// Notifications admitted and not yet finished.
    var queueDepth: Int { get async }
    /// Connections open now.
    var openConnections: Int { get async }
    /// Closes its connections; later sends are refused.
    func shutdown() async
    /// Failed connection attempts since start, by cause.
    var connectFailures: ConnectFailures { get async }
    /// The APNs environment its device tokens belong to; `nil` for a provider without one. A
    /// token of one environment is `BadDeviceToken` in the other, so front doors that pick an
    /// app by environment check it here.
    var apnsEnvironment: APNSAppConfiguration.Environment? { get }
}

extension PushProvider {
    public var connectFailures: ConnectFailures { get async { ConnectFailures() } }

    public var apnsEnvironment: APNSAppConfiguration.Environment? { nil }
}

extension PushProvider {
    public func serves(topic: String) -> Bool { false }

    /// One push, as a batch of one; throws only when it was not admitted.
    public func send(_ notification: PushNotification) async throws(AdmissionError) -> DeliveryOutcome {
        try await self.send(all: [notification])[0].result.get()
    }
}

/// The configuration section of a provider under `apps.<app>.`.
public protocol ProviderConfiguration: ConfigurationSectionValue {
    /// Whether any credential key is set; a section holding only defaults is no provider.
    var isConfigured: Bool { get }
    /// One phrase for the start-up log; never a secret.
    var summary: String { get }
    /// Descriptors its provider may hold at once (its connections, a token client's), which
    /// the node's descriptor budget counts against the open-file limit.
    var descriptors: Int { get }
}

/// What a provider is built with besides its own section.
public struct ProviderContext: Sendable {
    public var group: any EventLoopGroup
    public var metrics: DeliveryMetrics
    public var logger: Logger
    /// Times deadlines, back-off and token renewal (a test clock in tests).
    public var clock: any Clock<Duration>
    /// In a cluster, where the nodes share provider tokens; `nil` alone.
    public var sharedTokens: (any SharedProviderTokens)?
    /// The library that frames the HTTP/2 of APNs and FCM connections.
    public var http2Codec: HTTP2Codec

    public init(
        group: any EventLoopGroup,
        metrics: DeliveryMetrics,
        logger: Logger,
        clock: any Clock<Duration> = ContinuousClock(),
        sharedTokens: (any SharedProviderTokens)? = nil,
        http2Codec: HTTP2Codec = .nghttp2
    ) {
        self.group = group
        self.metrics = metrics
        self.logger = logger
        self.clock = clock
        self.sharedTokens = sharedTokens
        self.http2Codec = http2Codec
    }
}

/// A provider the node builds from configuration: it declares its section and builds itself
/// from it.
public protocol ConfigurablePushProvider: PushProvider {
    associatedtype AppConfiguration: ProviderConfiguration
    /// Reads the credential files the section names; throws `ConfigurationError` naming the key.
    static func make(app: String, configuration: AppConfiguration, context: ProviderContext) throws -> Self
}
