import HeraldConfig
import HeraldDelivery
public import NIOCore

/// Every descriptor a node may hold at once besides its API connections, counted from its
/// configuration. The API port's cap is what the open-file limit leaves after them; a limit that
/// leaves too few stops the start (exit 78) naming what does not fit.
///
/// Why the node must never reach the limit itself: Swift's tasks run on libdispatch's worker
/// threads, and while work is queued libdispatch checks each worker once a second by opening
/// `/proc/<tid>/stat` (`_dispatch_workq_monitor_pools`); when that open fails it traps (SIGILL,
/// "workq: registered worker exited prematurely"). A node out of descriptors is a dead node,
/// whatever Herald's own code does with the error — so every path that opens them is capped
/// within the limit, with room to spare.
public struct DescriptorBudget: Sendable, Equatable {
    public struct Item: Sendable, Equatable, CustomStringConvertible {
        public var count: Int
        public var what: String

        public var description: String { "\(self.count) for \(self.what)" }
    }

    /// Below this many API connections a node is not worth starting.
    public static let minimumAPIConnections = 16
    /// Connections of the operations port: probes and a few scrapers.
    public static let operationsConnections = 64
    /// Connections of the cluster's internal port (mutual TLS): other nodes, each with its pool.
    public static let internalConnections = 64
    /// Files opened briefly (key and certificate files, snapshots, `/proc` reads, name
    /// resolution, libdispatch's worker checks), and the connections a provider opens to replace
    /// one that is draining.
    static let transient = 48
    /// AsyncHTTPClient's HTTP/1 connections to one host at most.
    static let perHTTPClientHost = 8
    /// Other nodes the forwarding pool is counted for: a larger cluster needs 8 more a node.
    static let countedPeers = 7

    public let items: [Item]

    /// Descriptors counted, API connections aside.
    public var reserved: Int { self.items.reduce(0) { $0 + $1.count } }

    public init(configuration: HeraldConfiguration, eventLoops: Int = System.coreCount) {
        var items = [
            Item(
                count: 3 + 3 * eventLoops + 10,
                what: "the process (standard streams, 3 for each of \(eventLoops) event loops, the store's and the queue's LMDB files and writer loops)"
            ),
            Item(count: Self.transient, what: "files and connections opened briefly"),
        ]
        let server = configuration.server
        let cluster = configuration.cluster
        let listeners = 1 + (server.operationsPort == nil ? 0 : 1) + (cluster.isEnabled && cluster.usesTLS ? 1 : 0)
        items.append(Item(count: listeners, what: "listening sockets"))
        if server.operationsPort != nil {
            items.append(Item(count: Self.operationsConnections, what: "operations-port connections"))
        }
        var providers: [String] = []
        var providerCount = 0
        for (id, app) in configuration.apps.sorted(by: { $0.key < $1.key }) {
            for name in app.providers.names.sorted() {
                guard let provider = app.providers.value(named: name) as? any ProviderConfiguration else { continue }
                providers.append("apps.\(id).\(name) \(provider.descriptors)")
                providerCount += provider.descriptors
            }
        }
        if providerCount > 0 {
            items.append(Item(count: providerCount, what: "provider connections (\(providers.joined(separator: ", ")))"))
        }
        if cluster.isEnabled {
            items.append(Item(count: cluster.etcdEndpoints.count * Self.perHTTPClientHost, what: "etcd (\(Self.perHTTPClientHost) to each of \(cluster.etcdEndpoints.count) endpoints, watches included)"))
            items.append(Item(count: Self.countedPeers * Self.perHTTPClientHost, what: "forwarding to other nodes (\(Self.perHTTPClientHost) to each of \(Self.countedPeers))"))
            if cluster.usesTLS {
                items.append(Item(count: Self.internalConnections, what: "internal-port connections"))
            }
        }
        if configuration.feedback.url != nil {
            items.append(Item(count: Self.perHTTPClientHost, what: "the feedback webhook"))
        }
        self.items = items
    }

    /// The API port's connection cap: the configured one, or what the limit leaves; `nil` when it
    /// leaves fewer than `minimumAPIConnections` (or than a smaller configured cap).
    public func apiConnections(configured: Int, openFiles: Int) -> Int? {
        let room = openFiles == Int.max ? Int.max : openFiles - self.reserved
        guard room >= min(configured, Self.minimumAPIConnections) else { return nil }
        return min(configured, room)
    }

    /// Why the node does not start under `openFiles`.
    public func refusal(openFiles: Int) -> String {
        let needed = self.reserved + Self.minimumAPIConnections
        return "the open-file limit (\(openFiles)) cannot hold what this configuration opens: "
            + self.items.map(\.description).joined(separator: ", ")
            + " = \(self.reserved), and at least \(Self.minimumAPIConnections) API connections; raise the limit to at least \(needed)"
            + " (LimitNOFILE= in the systemd unit, ulimit -n) or configure fewer connections"
    }
}
