public import HeraldCluster
public import HeraldStore

/// The cluster on etcd: the command log and membership sharing one client of etcd's JSON
/// gateway.
public struct EtcdBackend: ConfigurableClusterBackend {
    public let client: EtcdClient
    public let etcdLog: EtcdCommandLog
    public let etcdMembership: EtcdMembership

    public var log: any CommandLog { self.etcdLog }
    public var membership: any MembershipBackend { self.etcdMembership }
    public var window: any LogWindowBackend { EtcdLogWindow(client: self.client, log: self.etcdLog) }
    public var sharedValues: any SharedValues { EtcdSharedValues(client: self.client, prefix: self.etcdLog.configuration.prefix) }

    public static func make(_ settings: ClusterBackendSettings) throws -> EtcdBackend {
        var clientConfiguration = EtcdClient.Configuration(endpoints: settings.endpoints)
        clientConfiguration.requestTimeout = settings.requestTimeout
        let client = EtcdClient(configuration: clientConfiguration)
        var logConfiguration = EtcdCommandLog.Configuration()
        logConfiguration.cipher = settings.cipher
        logConfiguration.prefix = settings.prefix
        logConfiguration.partitions = settings.partitions
        logConfiguration.writer = settings.nodeID
        let log = EtcdCommandLog(client: client, configuration: logConfiguration, appliedPosition: settings.appliedPosition, metrics: settings.metrics, logger: settings.logger)
        return EtcdBackend(client: client, etcdLog: log, etcdMembership: EtcdMembership(client: client, prefix: settings.prefix))
    }

    public func run() async throws {
        try await self.etcdLog.run()
    }

    public func shutdown() async throws {
        try await self.client.shutdown()
    }

    public func shutdownInBackground() {
        self.client.shutdownInBackground()
    }
}
