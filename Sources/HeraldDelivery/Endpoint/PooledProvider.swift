/// A provider that sends through a `ConnectionPool`: its gauges are the pool's.
protocol PooledProvider: PushProvider {
    var pool: ConnectionPool { get }
}

extension PooledProvider {
    /// Notifications admitted and not yet finished.
    public var queueDepth: Int { get async { await self.pool.queueDepth } }
    /// Connections open now.
    public var openConnections: Int { get async { await self.pool.openConnections } }
    public var connectFailures: ConnectFailures { get async { await self.pool.connectFailureCounts } }
}
