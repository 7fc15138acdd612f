import AsyncHTTPClient
import CoreMetrics
import Foundation
public import HeraldCluster
public import HeraldStore
public import Logging
import NIOCore
import NIOHTTP1

extension HeraldNode {
    /// A cluster node starting with no store (an empty `store.path`), or with one below the log's
    /// trim point (it was away longer than the log keeps), fetches a live member's snapshot over
    /// the internal API and installs it, then follows the log from the snapshot's position
    /// instead of replaying it from the first entry. Alone, with a store the log can bring up to
    /// date, or when no member can send one (the first node of a cluster), it does nothing and
    /// the node follows the log as before. Run before `build`, which opens the store.
    @discardableResult
    public static func restoreStoreFromPeer(
        configuration: HeraldConfiguration,
        clusterBackend: any ConfigurableClusterBackend.Type = HeraldNode.clusterBackend,
        progress: RestoreProgress? = nil,
        logger: Logger
    ) async throws -> StoreSnapshot.Header? {
        let cluster = configuration.cluster
        guard cluster.isEnabled, let secret = cluster.secret else { return nil }
        let cipher = try configuration.storeCipher().cipher
        var applied: LogPosition?
        if FileManager.default.fileExists(atPath: configuration.store.path + "/data.mdb") {
            let store = try LocalStore(path: configuration.store.path, configuration: configuration.store.environment, cipher: cipher)
            applied = try? store.view.appliedPosition()
            try await store.close()
        }
        let (live, positions, trimPoint) = try await Self.clusterState(configuration, backend: clusterBackend, logger: logger)
        if let applied {
            // A store the log can still bring up to date is kept.
            guard applied < trimPoint else { return nil }
            logger.warning(
                "the store is below the log's trim point: it is replaced by a member's snapshot",
                metadata: ["store.applied": "\(applied)", "log.trim-point": "\(trimPoint)"]
            )
        }
        // The member furthest along, as the members last said, first; ties in any order.
        let members = live.filter { $0.id != configuration.nodeID }
            .shuffled()
            .sorted { (positions[$0.id] ?? 0) > (positions[$1.id] ?? 0) }
        guard !members.isEmpty else {
            logger.notice("no live member to take a snapshot from; the store is built from the log")
            return nil
        }
        var http = HTTPClient.Configuration()
        http.timeout.connect = .seconds(5)
        // Between two chunks; the member writes the whole copy before the first.
        http.timeout.read = .seconds(300)
        http.tlsConfiguration = cluster.usesTLS ? try ClusterTLS(cluster).client : nil
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: http)
        defer { client.shutdown { _ in } }
        for member in members {
            do {
                let header = try await Self.restore(from: member, client: client, secret: secret, into: configuration.store.path, cipher: cipher, progress: progress, logger: logger)
                logger.notice(
                    "store restored from a member's snapshot; following the log from there",
                    metadata: ["member": "\(member.id)", "snapshot.position": "\(header.appliedPosition)", "snapshot.bytes": "\(header.bytes)"]
                )
                return header
            } catch {
                logger.warning("cannot restore from this member's snapshot; trying the next", metadata: ["member": "\(member.id)", "error": "\(error)"])
            }
        }
        logger.warning("no member sent a usable snapshot; the store is built from the log")
        return nil
    }

    /// The live members as the backend lists them now, how far each said it applied, and the
    /// log's trim point.
    private static func clusterState(
        _ configuration: HeraldConfiguration,
        backend backendType: any ConfigurableClusterBackend.Type,
        logger: Logger
    ) async throws -> (members: [ClusterMember], applied: [String: LogPosition], trimPoint: LogPosition) {
        let backend = try backendType.make(
            ClusterBackendSettings(
                endpoints: configuration.cluster.etcdEndpoints,
                requestTimeout: configuration.cluster.requestTimeout,
                prefix: configuration.cluster.prefix,
                partitions: configuration.cluster.partitions,
                nodeID: configuration.nodeID,
                cipher: nil,
                appliedPosition: { 0 },
                metrics: NOOPMetricsHandler.instance,
                logger: logger
            )
        )
        do {
            var members: [ClusterMember] = []
            try await backend.membership.followMembers { current in
                members = current
                return false
            }
            let trimPoint = try await backend.window.trimPoint()
            let applied = try await backend.window.appliedPositions()
            try await backend.shutdown()
            return (members, applied, trimPoint)
        } catch {
            try? await backend.shutdown()
            throw error
        }
    }

    private static func restore(
        from member: ClusterMember,
        client: HTTPClient,
        secret: String,
        into directory: String,
        cipher: StoreCipher?,
        progress: RestoreProgress?,
        logger: Logger
    ) async throws -> StoreSnapshot.Header {
        var request = HTTPClientRequest(url: member.url + SnapshotRoutes.path)
        request.headers.add(name: "Authorization", value: "Bearer \(secret)")
        let response = try await client.execute(request, timeout: .hours(6))
        guard response.status == .ok else {
            let body = try? await response.body.collect(upTo: 4096)
            throw StoreError(.unavailable, "\(member.url) answered \(response.status): \(body.map { String(buffer: $0) } ?? "")")
        }
        let expected = response.headers.first(name: "Content-Length").flatMap(Int.init)
        logger.notice("restoring the store from a member's snapshot", metadata: ["member": "\(member.id)", "snapshot.bytes": "\(expected.map(String.init) ?? "unknown")"])
        progress?.begin(member: member.id, totalBytes: expected)
        var body = response.body.makeAsyncIterator()
        var reported = ContinuousClock.now
        return try await LocalStore.installSnapshot(
            into: directory,
            cipher: cipher,
            received: { total in
                progress?.received(total)
                guard ContinuousClock.now - reported >= .seconds(5) else { return }
                reported = .now
                logger.notice("restoring the store", metadata: ["member": "\(member.id)", "received.bytes": "\(total)", "snapshot.bytes": "\(expected.map(String.init) ?? "unknown")"])
            },
            reading: { try await body.next().map { Array($0.readableBytesView) } }
        )
    }
}
