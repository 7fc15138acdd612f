public import HeraldCore
public import Logging
public import ServiceLifecycle
import Synchronization

/// This node's membership in the cluster: a member record under a lease of the backend's, kept
/// alive every third of its TTL, and the live member set as the backend says, from which every
/// node computes the same partition map. A node that dies stops renewing; the backend drops its
/// record a TTL later and the others' maps move its partitions. On graceful shutdown the lease is revoked, so the node
/// leaves at once.
public final class Membership: Service, Sendable, DescribedByName {
    public struct Configuration: Sendable {
        public var nodeID: String
        /// Where other nodes reach this one.
        public var url: String
        public var partitions: Int = 256
        /// Seconds; a backend may grant more (etcd grants at least 2).
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
        /// Whether the last exchange with the backend succeeded.
        public var backendReachable: Bool
        /// Whether this node's own member key is registered.
        public var registered: Bool
        /// How often registering was refused because a live node holds this node's id.
        public var idTakenRefusals = 0
        /// The lease this node's member record lives under, while registered; what else the node
        /// keeps only while it is a member (how far it has applied) lives under it too.
        public var lease: MemberLease?
    }

    public let configuration: Configuration
    private let backend: any MembershipBackend
    private let logger: Logger
    private let state: Mutex<Snapshot>

    public init(configuration: Configuration, backend: any MembershipBackend, logger: Logger) {
        self.configuration = configuration
        self.backend = backend
        self.logger = logger
        self.state = Mutex(Snapshot(members: [], map: PartitionMap(partitions: configuration.partitions, members: []), backendReachable: false, registered: false))
    }

    public var snapshot: Snapshot { self.state.withLock { $0 } }

    /// The partitions this node owns now.
    public var ownedPartitions: [Int] { self.snapshot.map.owned(by: self.configuration.nodeID) }

    public func run() async throws {
        var lease: MemberLease?
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
                    let granted: MemberLease
                    do {
                        // Only if no live node holds the id: two nodes under one id would take
                        // each other's partitions. A crashed predecessor's record goes when its
                        // lease ends.
                        granted = try await self.backend.join(as: ClusterMember(id: self.configuration.nodeID, url: self.configuration.url), ttl: self.configuration.leaseTTL)
                    } catch let error as MembershipError {
                        self.update { $0.idTakenRefusals += 1 }
                        throw error
                    }
                    lease = granted
                    self.update { $0.registered = true; $0.backendReachable = true; $0.lease = granted }
                    failures = 0
                    try await self.maintain(granted)
                } catch {
                    if Task.isCancelled || Task.isShuttingDownGracefully { break }
                    // A lease that is still alive would keep this node's key, and the new
                    // registration would wait for it to expire.
                    if let old = lease { try? await self.backend.leave(old) }
                    lease = nil
                    failures += 1
                    self.update { $0.backendReachable = false; $0.registered = false; $0.lease = nil }
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
            try? await self.backend.leave(lease)
        }
        self.update { $0.registered = false; $0.lease = nil }
    }

    /// Renews the lease until it is gone (then the caller registers again) or shutdown begins,
    /// and follows the member set meanwhile. A failed renewal is tried again at the next tick and
    /// a failed watch is restarted: neither gives up the lease, which would make the node leave
    /// and rejoin (moving partitions twice) over a blip.
    private func maintain(_ lease: MemberLease) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                let interval = Duration.milliseconds(max(lease.ttl, 2) * 1000 / 3)
                while !Task.isShuttingDownGracefully {
                    try await Task.sleep(for: interval)
                    let alive: Bool
                    do {
                        alive = try await self.backend.renew(lease)
                    } catch is CancellationError {
                        throw CancellationError()
                    } catch {
                        self.update { $0.backendReachable = false }
                        continue
                    }
                    guard alive else { throw MembershipLeaseLost() }
                    self.update { $0.backendReachable = true }
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

    /// `onProgress` is told whenever the backend delivers, so a caller's failure count restarts.
    private func followMembers(onProgress: () -> Void = {}) async throws {
        try await self.backend.followMembers { members in
            onProgress()
            self.publish(members)
            return !Task.isShuttingDownGracefully
        }
    }

    private func publish(_ members: [ClusterMember]) {
        let sorted = members.sorted { $0.id < $1.id }
        let map = PartitionMap(partitions: self.configuration.partitions, members: sorted.map(\.id))
        let changed = self.state.withLock { state -> Bool in
            defer {
                state.members = sorted
                state.map = map
                state.backendReachable = true
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

/// The lease ended under a running member; it joins again.
struct MembershipLeaseLost: Error, CustomStringConvertible {
    var description: String { "the membership lease expired" }
}
