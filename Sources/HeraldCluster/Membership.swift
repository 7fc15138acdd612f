public import HeraldCore
import Foundation
public import HeraldStore
public import Logging
public import ServiceLifecycle
import Synchronization

/// This node's membership in the cluster: a member key under an etcd lease, kept alive every
/// third of its TTL, and the live member set as etcd says, from which every node computes the
/// same partition map. A node that dies stops renewing; etcd deletes its key a TTL later and the
/// others' maps move its partitions. On graceful shutdown the lease is revoked, so the node
/// leaves at once.
public final class Membership: Service, Sendable, DescribedByName {
    public struct Configuration: Sendable {
        public var nodeID: String
        /// Where other nodes reach this one.
        public var url: String
        public var prefix: String = "herald/"
        public var partitions: Int = 256
        /// Seconds; etcd grants at least 2.
        public var leaseTTL: Int64 = 5
        /// Returns once the node may take partitions: a node joining with its view far behind
        /// the log would own partitions it cannot write for until it caught up, so it joins
        /// after. It should return when graceful shutdown begins.
        public var readyToJoin: (@Sendable () async -> Void)?

        public init(nodeID: String, url: String) {
            self.nodeID = nodeID
            self.url = url
        }
    }

    /// What the node knows of the cluster now.
    public struct Snapshot: Sendable {
        public var members: [ClusterMember]
        public var map: PartitionMap
        /// Whether the last exchange with etcd succeeded.
        public var etcdReachable: Bool
        /// Whether this node's own member key is registered.
        public var registered: Bool
        /// How often registering was refused because a live node holds this node's id.
        public var idTakenRefusals = 0
    }

    public let configuration: Configuration
    private let client: EtcdClient
    private let logger: Logger
    private let state: Mutex<Snapshot>

    public init(configuration: Configuration, client: EtcdClient, logger: Logger) {
        self.configuration = configuration
        self.client = client
        self.logger = logger
        self.state = Mutex(Snapshot(members: [], map: PartitionMap(partitions: configuration.partitions, members: []), etcdReachable: false, registered: false))
    }

    public var snapshot: Snapshot { self.state.withLock { $0 } }

    /// The partitions this node owns now.
    public var ownedPartitions: [Int] { self.snapshot.map.owned(by: self.configuration.nodeID) }

    var membersPrefix: [UInt8] { Array((self.configuration.prefix + "members/").utf8) }
    var memberKey: [UInt8] { self.membersPrefix + Array(self.configuration.nodeID.utf8) }

    public func run() async throws {
        var lease: Int64?
        var failures = 0
        await withGracefulShutdownHandler {
            if let ready = self.configuration.readyToJoin {
                // It follows the members meanwhile, so it knows every partition's owner and
                // forwards what it receives while it catches up.
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { try? await self.watchMembers() }
                    await ready()
                    group.cancelAll()
                }
            }
            while !Task.isCancelled, !Task.isShuttingDownGracefully {
                do {
                    let granted = try await self.client.grantLease(ttl: self.configuration.leaseTTL)
                    lease = granted.id
                    let value = try JSONEncoder().encode(ClusterMember(id: self.configuration.nodeID, url: self.configuration.url))
                    // Only if no live node holds the id: two nodes under one id would take each
                    // other's partitions. A crashed predecessor's key goes when its lease ends.
                    let registered = try await self.client.txn(
                        [EtcdCompare(key: self.memberKey, .createRevision(0))],
                        success: [.put(key: self.memberKey, value: Array(value), lease: granted.id)]
                    )
                    guard registered.succeeded else {
                        try? await self.client.revoke(lease: granted.id)
                        self.update { $0.idTakenRefusals += 1 }
                        throw EtcdError(.refused, "another live node holds the member id \(self.configuration.nodeID); waiting for its lease to end")
                    }
                    self.update { $0.registered = true; $0.etcdReachable = true }
                    failures = 0
                    try await self.maintain(lease: granted.id, ttl: granted.ttl)
                } catch {
                    if Task.isCancelled || Task.isShuttingDownGracefully { break }
                    // A lease that is still alive would keep this node's key, and the new
                    // registration would wait for it to expire.
                    if let old = lease { try? await self.client.revoke(lease: old) }
                    lease = nil
                    failures += 1
                    self.update { $0.etcdReachable = false; $0.registered = false }
                    let pause = Duration.milliseconds(200 * (1 << min(failures, 5)))
                    self.logger.warning("cluster membership lost; registering again", metadata: ["error": "\(error)", "retry.in": "\(pause)"])
                    try? await Task.sleep(for: pause)
                }
            }
        } onGracefulShutdown: {
            // Nothing to interrupt: the loops below check for shutdown on every turn.
        }
        if let lease {
            // Leaving now instead of a TTL later lets the others take over at once.
            try? await self.client.revoke(lease: lease)
        }
        self.update { $0.registered = false }
    }

    /// Renews the lease until it is gone (then the caller registers again) or shutdown begins,
    /// and follows the member set meanwhile. A failed renewal is tried again at the next tick and
    /// a failed watch is restarted: neither gives up the lease, which would make the node leave
    /// and rejoin (moving partitions twice) over a blip.
    private func maintain(lease: Int64, ttl: Int64) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                let interval = Duration.milliseconds(max(ttl, 2) * 1000 / 3)
                while !Task.isShuttingDownGracefully {
                    try await Task.sleep(for: interval)
                    do {
                        let remaining = try await self.client.keepAlive(lease: lease)
                        guard remaining > 0 else { throw EtcdError(.leaseNotFound, "the membership lease expired") }
                        self.update { $0.etcdReachable = true }
                    } catch let error as EtcdError where error.code != .leaseNotFound {
                        self.update { $0.etcdReachable = false }
                    }
                }
            }
            group.addTask { try await self.watchMembers() }
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    /// Follows the member set until cancelled or shutdown begins, restarting the watch after
    /// failures with growing pauses.
    private func watchMembers() async throws {
        var failures = 0
        while !Task.isShuttingDownGracefully {
            do {
                try await self.followMembers { failures = 0 }
            } catch is CancellationError {
                return
            } catch {
                failures += 1
                self.logger.warning("the cluster member watch failed; restarting", metadata: ["error": "\(error)"])
                try await Task.sleep(for: .milliseconds(100 * (1 << min(failures, 6))))
            }
        }
    }

    /// `onProgress` is told whenever the watch delivers, so a caller's failure count restarts.
    private func followMembers(onProgress: () -> Void = {}) async throws {
        let prefix = self.membersPrefix
        let current = try await self.client.range(prefix, rangeEnd: EtcdKey.prefixEnd(prefix))
        var members: [String: ClusterMember] = [:]
        for keyValue in current.keyValues {
            if let member = try? JSONDecoder().decode(ClusterMember.self, from: Data(keyValue.value)) { members[member.id] = member }
        }
        self.publish(members)
        for try await batch in self.client.watch(prefix: prefix, from: current.revision + 1, includeDeletes: true, silenceLimit: .seconds(30)) {
            onProgress()
            for event in batch.events {
                let id = String(decoding: event.keyValue.key.dropFirst(prefix.count), as: UTF8.self)
                if event.isDelete {
                    members[id] = nil
                } else if let member = try? JSONDecoder().decode(ClusterMember.self, from: Data(event.keyValue.value)) {
                    members[member.id] = member
                }
            }
            if !batch.events.isEmpty { self.publish(members) }
            if Task.isShuttingDownGracefully { return }
        }
    }

    private func publish(_ members: [String: ClusterMember]) {
        let sorted = members.values.sorted { $0.id < $1.id }
        let map = PartitionMap(partitions: self.configuration.partitions, members: sorted.map(\.id))
        let changed = self.state.withLock { state -> Bool in
            defer {
                state.members = sorted
                state.map = map
                state.etcdReachable = true
            }
            return state.members != sorted
        }
        if changed {
            self.logger.notice(
                "cluster members changed",
                metadata: ["members": "\(sorted.map(\.id))", "partitions.owned": "\(map.owned(by: self.configuration.nodeID).count)"]
            )
        }
    }

    private func update(_ change: (inout Snapshot) -> Void) {
        self.state.withLock { change(&$0) }
    }
}
