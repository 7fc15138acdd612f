import AsyncHTTPClient
import NIOCore
import NIOSSL
import Synchronization

/// The HTTP clients of one Web Push provider, one per endpoint host, each pinned to an address
/// this provider resolved and checked. AsyncHTTPClient resolves host names itself, so a client
/// is made with `dnsOverride` from the host to the checked address: it connects there and still
/// sends SNI and verifies the certificate for the host name. A host's addresses are looked up
/// again after `refreshAfter` or once its connection failed (then the next allowed address is
/// tried), and an old client is closed when the requests it carries have ended.
actor WebPushClients {
    struct Settings: Sendable {
        var endpoints: WebPushEndpointPolicy
        var tls: TLSConfiguration
        var connectionsPerHost: Int
        /// Hosts with a client at once; the least recently used one is closed past it.
        var hosts: Int
        var connectTimeout: Duration
        /// How long a response may go without a byte once it started.
        var readTimeout: Duration
        var refreshAfter: Duration
    }

    /// A host's client and the address it is pinned to.
    private final class Pinned: Sendable {
        let client: HTTPClient
        let address: String

        init(client: HTTPClient, address: String) {
            self.client = client
            self.address = address
        }
    }

    private let settings: Settings
    private let group: any EventLoopGroup
    private let clock: DeliveryClock
    private var pinned: [String: Pinned] = [:]
    /// When each host's addresses were last looked up.
    private var resolvedAt: [String: DeliveryClock.Instant] = [:]
    /// One lookup a host at a time: pushes arriving while it runs wait for it.
    private var resolving: [String: (id: Int, task: Task<[String], any Error>)] = [:]
    private var nextLookup = 0
    /// The address of each host whose last connection failed: the next pin prefers another.
    private var failedAddress: [String: String] = [:]
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
    /// A lookup that takes longer than `timeout` fails this attempt (`getaddrinfo` cannot be
    /// cancelled; the lookup goes on for the next one).
    func acquire(_ endpoint: WebPushSubscription.Endpoint, within timeout: Duration) async throws(WebPushEndpointError) -> HTTPClient {
        guard !self.isShutDown else { throw .unavailable("the Web Push provider is shut down") }
        let key = endpoint.authority
        if let current = self.pinned[key], let at = self.resolvedAt[key], self.clock.now - at < self.settings.refreshAfter {
            self.touch(key)
            return self.lease(current.client)
        }
        let allowed = try await self.lookUp(endpoint, within: timeout)
        guard !self.isShutDown else { throw .unavailable("the Web Push provider is shut down") }
        self.resolvedAt[key] = self.clock.now
        // The pinned address while the host still has it; else the first in the policy's order,
        // but not the one that just failed while there is another.
        let address: String
        if let current = self.pinned[key], allowed.contains(current.address) {
            address = current.address
        } else {
            address = allowed.first { $0 != self.failedAddress[key] } ?? allowed[0]
        }
        if let current = self.pinned[key], current.address == address {
            self.touch(key)
            return self.lease(current.client)
        }
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: self.settings.tls,
            // A push service answers; it never redirects, and following one would leave the
            // checked address.
            redirectConfiguration: .disallow,
            timeout: .init(connect: TimeAmount(self.settings.connectTimeout), read: TimeAmount(self.settings.readTimeout)),
            connectionPool: .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: self.settings.connectionsPerHost)
        )
        configuration.dnsOverride = [endpoint.host: address]
        let client = HTTPClient(eventLoopGroup: self.group, configuration: configuration)
        if let old = self.pinned[key] { self.retire(old.client) }
        self.pinned[key] = Pinned(client: client, address: address)
        self.touch(key)
        while self.pinned.count > self.settings.hosts, let oldest = self.recency.first {
            self.recency.removeFirst()
            self.resolvedAt[oldest] = nil
            if let evicted = self.pinned.removeValue(forKey: oldest) { self.retire(evicted.client) }
        }
        return self.lease(client)
    }

    /// Ends a request on `client`; `transportFailed` (no answer came: the connection failed or
    /// timed out) drops its host's pin, so the next request looks the host up again and tries
    /// another of its addresses.
    func release(_ client: HTTPClient, transportFailed: Bool, endpoint: WebPushSubscription.Endpoint) {
        let id = ObjectIdentifier(client)
        self.inFlight[id, default: 1] -= 1
        let key = endpoint.authority
        if transportFailed, let current = self.pinned[key], current.client === client {
            self.pinned[key] = nil
            self.resolvedAt[key] = nil
            self.failedAddress[key] = current.address
            self.recency.removeAll { $0 == key }
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

    /// The host's allowed addresses, from the lookup under way or a new one, within `timeout`.
    private func lookUp(_ endpoint: WebPushSubscription.Endpoint, within timeout: Duration) async throws(WebPushEndpointError) -> [String] {
        let key = endpoint.authority
        let lookup: Task<[String], any Error>
        if let running = self.resolving[key] {
            lookup = running.task
        } else {
            let policy = self.settings.endpoints
            let id = self.nextLookup
            self.nextLookup += 1
            lookup = Task {
                do {
                    let found = try await policy.allowedAddresses(for: endpoint)
                    self.lookUpEnded(key, id: id)
                    return found
                } catch {
                    self.lookUpEnded(key, id: id)
                    throw error
                }
            }
            self.resolving[key] = (id, lookup)
        }
        // Not a task group: it would wait for its children, and waiting for a lookup's value
        // cannot be cancelled. Whichever ends first answers; the other ends on its own.
        let clock = self.clock
        let outcome: Result<[String], any Error> = await withCheckedContinuation { continuation in
            let first = FirstAnswer(continuation)
            let timer = Task {
                try? await clock.sleep(for: timeout)
                first.answer(.failure(WebPushEndpointError.unavailable("looking up \(endpoint.host) took longer than \(timeout)")))
            }
            Task {
                do { first.answer(.success(try await lookup.value)) } catch { first.answer(.failure(error)) }
                timer.cancel()
            }
        }
        switch outcome {
        case .success(let addresses): return addresses
        case .failure(let error as WebPushEndpointError): throw error
        case .failure(let error): throw .unavailable("\(error)")
        }
    }

    private func lookUpEnded(_ key: String, id: Int) {
        if self.resolving[key]?.id == id { self.resolving[key] = nil }
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

/// Resumes a continuation with the first answer given and ignores the rest.
private final class FirstAnswer: Sendable {
    private let continuation: Mutex<CheckedContinuation<Result<[String], any Error>, Never>?>

    init(_ continuation: CheckedContinuation<Result<[String], any Error>, Never>) {
        self.continuation = Mutex(continuation)
    }

    func answer(_ result: Result<[String], any Error>) {
        self.continuation.withLock { continuation in
            continuation?.resume(returning: result)
            continuation = nil
        }
    }
}
