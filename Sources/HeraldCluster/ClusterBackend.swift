public import CoreMetrics
public import HeraldStore
public import Logging

/// The service a cluster coordinates through: the replicated command log every node appends to
/// and follows, and membership's leases and member set. etcd is one (HeraldEtcd); the node names
/// it only in its list of parts, so another backend is a module and one line there.
public protocol ClusterBackend: Sendable {
    /// The log every node's view follows.
    var log: any CommandLog { get }
    /// Leases and the member set, for `Membership`.
    var membership: any MembershipBackend { get }
    /// How far members have applied and the trimming of the log, for `LogWindowKeeper`.
    var window: any LogWindowBackend { get }
    /// Values the nodes share, such as provider tokens.
    var sharedValues: any SharedValues { get }
    /// Its long-lived work (following the log) until graceful shutdown.
    func run() async throws
    /// Closes its connections, once `run` has returned.
    func shutdown() async throws
    /// Closes its connections without waiting, for a start-up that failed before anything ran.
    func shutdownInBackground()
}

/// A backend the node builds from its configuration.
public protocol ConfigurableClusterBackend: ClusterBackend {
    static func make(_ settings: ClusterBackendSettings) throws -> Self
}

/// What the node's configuration and store give a backend.
public struct ClusterBackendSettings: Sendable {
    /// Where the backend's servers are (`cluster.etcd-endpoints`).
    public var endpoints: [String]
    /// Bounds one call to the backend (`cluster.request-timeout`).
    public var requestTimeout: Duration
    /// Prefix of every key the cluster keeps (`cluster.prefix`), so clusters can share a backend.
    public var prefix: String
    public var partitions: Int
    /// This node's id, recorded as the writer of what it appends.
    public var nodeID: String
    /// Seals log entries like the store's own (`nil`: kept as they are).
    public var cipher: StoreCipher?
    /// How far the node's view has applied the log.
    public var appliedPosition: @Sendable () throws -> LogPosition
    public var metrics: any MetricsFactory
    public var logger: Logger

    public init(
        endpoints: [String],
        requestTimeout: Duration,
        prefix: String,
        partitions: Int,
        nodeID: String,
        cipher: StoreCipher?,
        appliedPosition: @escaping @Sendable () throws -> LogPosition,
        metrics: any MetricsFactory,
        logger: Logger
    ) {
        self.endpoints = endpoints
        self.requestTimeout = requestTimeout
        self.prefix = prefix
        self.partitions = partitions
        self.nodeID = nodeID
        self.cipher = cipher
        self.appliedPosition = appliedPosition
        self.metrics = metrics
        self.logger = logger
    }
}
