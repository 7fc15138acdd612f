import AsyncHTTPClient
import NIOCore
import NIOSSL

/// The HTTP clients of one Web Push provider, one per endpoint host, each pinned to an address
/// this provider resolved and checked. AsyncHTTPClient resolves host names itself, so a client
/// is made with `dnsOverride` from the host to the checked address: it connects there and still
/// sends SNI and verifies the certificate for the host name. A host's address is looked up again
/// after `refreshAfter` or once its connection failed, and the old client is closed when the
/// requests it carries have ended.
actor WebPushClients {
    struct Settings: Sendable {
        var endpoints: WebPushEndpointPolicy
        var tls: TLSConfiguration
        var connectionsPerHost: Int
        /// Hosts with a client at once; the least recently used one is closed past it.
        var hosts: Int
        var connectTimeout: Duration
        var refreshAfter: Duration
    }

    /// A host's client, the address it is pinned to, and its requests under way.
    private final class Pinned: Sendable {
        let client: HTTPClient
        let address: String
        let resolvedAt: DeliveryClock.Instant

        init(client: HTTPClient, address: String, resolvedAt: DeliveryClock.Instant) {
            self.client = client
            self.address = address
            self.resolvedAt = resolvedAt
        }
    }

    private let settings: Settings
    private let group: any EventLoopGroup
    private let clock: DeliveryClock
    private var pinned: [String: Pinned] = [:]
    /// Hosts by last use, oldest first.
    private var recency: [String] = []
    /// Requests under way on each client, by its identity, so a replaced client closes when they end.
    private var inFlight: [ObjectIdentifier: Int] = [:]
    private var retired: [ObjectIdentifier: HTTPClient] = [:]
    private var isShutDown = false

    init(settings: Settings, group: any EventLoopGroup, clock: DeliveryClock) {
        self.settings = settings
        self.group = group
        self.clock = clock
    }

    /// Hosts with a client now: AsyncHTTPClient does not tell its connections, so the gauge of
    /// open connections counts these.
    var hostCount: Int { self.pinned.count }

    /// A client for `endpoint`'s host, pinned to an allowed address; the caller must `release` it.
    func acquire(_ endpoint: WebPushSubscription.Endpoint) async throws(WebPushEndpointError) -> HTTPClient {
        guard !self.isShutDown else { throw .unavailable("the Web Push provider is shut down") }
        let key = endpoint.authority
        if let current = self.pinned[key], self.clock.now - current.resolvedAt < self.settings.refreshAfter {
            self.touch(key)
            return self.lease(current.client)
        }
        let address = try await self.settings.endpoints.address(for: endpoint)
        // Another request may have pinned the host while this one resolved.
        if let current = self.pinned[key], current.address == address {
            self.touch(key)
            return self.lease(current.client)
        }
        guard !self.isShutDown else { throw .unavailable("the Web Push provider is shut down") }
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: self.settings.tls,
            // A push service answers; it never redirects, and following one would leave the
            // checked address.
            redirectConfiguration: .disallow,
            timeout: .init(connect: TimeAmount(self.settings.connectTimeout)),
            connectionPool: .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: self.settings.connectionsPerHost)
        )
        configuration.dnsOverride = [endpoint.host: address]
        let client = HTTPClient(eventLoopGroup: self.group, configuration: configuration)
        if let old = self.pinned[key] { self.retire(old.client) }
        self.pinned[key] = Pinned(client: client, address: address, resolvedAt: self.clock.now)
        self.touch(key)
        while self.pinned.count > self.settings.hosts, let oldest = self.recency.first {
            self.recency.removeFirst()
            if let evicted = self.pinned.removeValue(forKey: oldest) { self.retire(evicted.client) }
        }
        return self.lease(client)
    }

    /// Ends a request on `client`; `transportFailed` (no answer came: the connection failed or
    /// timed out) drops its host's pin, so the next request looks the host up again.
    func release(_ client: HTTPClient, transportFailed: Bool, endpoint: WebPushSubscription.Endpoint) {
        let id = ObjectIdentifier(client)
        self.inFlight[id, default: 1] -= 1
        if transportFailed, let current = self.pinned[endpoint.authority], current.client === client {
            self.pinned[endpoint.authority] = nil
            self.recency.removeAll { $0 == endpoint.authority }
            self.retire(client)
        }
        if self.inFlight[id] == 0 {
            self.inFlight[id] = nil
            if let done = self.retired.removeValue(forKey: id) { Self.close(done) }
        }
    }

    /// Closes every client; requests under way fail.
    func shutdown() async {
        self.isShutDown = true
        let clients = self.pinned.values.map(\.client) + self.retired.values
        self.pinned = [:]
        self.retired = [:]
        self.recency = []
        for client in clients { try? await client.shutdown() }
    }

    private func lease(_ client: HTTPClient) -> HTTPClient {
        self.inFlight[ObjectIdentifier(client), default: 0] += 1
        return client
    }

    private func touch(_ key: String) {
        if self.recency.last != key {
            self.recency.removeAll { $0 == key }
            self.recency.append(key)
        }
    }

    private func retire(_ client: HTTPClient) {
        let id = ObjectIdentifier(client)
        if (self.inFlight[id] ?? 0) == 0 {
            Self.close(client)
        } else {
            self.retired[id] = client
        }
    }

    private static func close(_ client: HTTPClient) {
        Task { try? await client.shutdown() }
    }
}
