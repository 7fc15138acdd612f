public import HeraldCluster
public import HeraldStore
import Synchronization

/// The log's window on etcd. Keys, under the cluster's prefix:
/// - `applied/<member>`: how far the member has applied, in decimal, under its member lease;
/// - `trimmer`: the member holding the trimmer's role, under its lease;
/// - `trim`: the trim point, in decimal; entries at or below it may be gone.
///
/// Log keys (`log/pNNNN/<fence bound>`) sort within a partition in the order they were written,
/// so the entries at or below the trim point are a prefix of each partition's keys, deleted
/// with one range delete ending just after the last of them: a key appended meanwhile sorts
/// after it and stays.
public struct EtcdLogWindow: LogWindowBackend {
    let client: EtcdClient
    let log: EtcdCommandLog
    /// Where the trim toward the current trim point goes on: the keeper calls `trim` until it
    /// deletes nothing, and each call starting again at the first partition read the cleaned
    /// ones again, a pass quadratic in the partitions (measured: the trimmer fell behind a
    /// cluster taking 250 writes a second).
    let cursor = TrimCursor()

    public init(client: EtcdClient, log: EtcdCommandLog) {
        self.client = client
        self.log = log
    }

    var prefix: String { self.log.configuration.prefix }
    var appliedPrefix: [UInt8] { Array((self.prefix + "applied/").utf8) }
    var trimmerKey: [UInt8] { Array((self.prefix + "trimmer").utf8) }

    public func publishApplied(_ position: LogPosition, member: String, lease: MemberLease) async throws {
        _ = try await self.etcd { try await self.client.put(self.appliedPrefix + Array(member.utf8), Array(String(position).utf8), lease: lease.id) }
    }

    public func appliedPositions() async throws -> [String: LogPosition] {
        let prefix = self.appliedPrefix
        let answer = try await self.etcd { try await self.client.range(prefix, rangeEnd: EtcdKey.prefixEnd(prefix)) }
        var positions: [String: LogPosition] = [:]
        for keyValue in answer.keyValues {
            guard let position = LogPosition(String(decoding: keyValue.value, as: UTF8.self)) else { continue }
            positions[String(decoding: keyValue.key.dropFirst(prefix.count), as: UTF8.self)] = position
        }
        return positions
    }

    public func claimTrimmer(member: String, lease: MemberLease) async throws -> Bool {
        let key = self.trimmerKey
        let result = try await self.etcd {
            try await self.client.txn(
                [EtcdCompare(key: key, .createRevision(0))],
                success: [.put(key: key, value: Array(member.utf8), lease: lease.id)],
                failure: [.range(key: key)]
            )
        }
        if result.succeeded { return true }
        return result.ranges.first?.first.map { String(decoding: $0.value, as: UTF8.self) == member } ?? false
    }

    public func trimPoint() async throws -> LogPosition {
        try await self.log.trimPoint()
    }

    public func trim(through position: LogPosition, limit: Int) async throws -> Int {
        if try await self.trimPoint() < position {
            _ = try await self.etcd { try await self.client.put(self.log.trimKey, Array(String(position).utf8)) }
        }
        var deletes: [EtcdOperation] = []
        var deleted = 0
        var partition = self.cursor.start(for: position)
        let partitions = self.log.configuration.partitions
        while partition < partitions, deleted < limit {
            let prefix = Array((self.prefix + "log/" + EtcdCommandLog.partitionName(partition) + "/").utf8)
            let wanted = max(limit - deleted, 1)
            let keys = try await self.etcd {
                try await self.client.range(prefix, rangeEnd: EtcdKey.prefixEnd(prefix), limit: Int64(wanted), keysOnly: true)
            }
            let trimmed = keys.keyValues.prefix { LogPosition($0.modRevision) <= position }
            if let last = trimmed.last {
                deletes.append(.delete(key: prefix, rangeEnd: last.key + [0]))
                deleted += trimmed.count
            }
            // A partition may hold more below the trim point than this call had room for.
            let mayHoldMore = trimmed.count == wanted && keys.keyValues.count == wanted
            if !mayHoldMore { partition += 1 }
            // etcd takes 128 operations in one transaction by default.
            if deletes.count == 64 {
                _ = try await self.etcd { try await self.client.txn([], success: deletes) }
                deletes = []
            }
        }
        self.cursor.store(partition, for: position)
        if !deletes.isEmpty {
            _ = try await self.etcd { try await self.client.txn([], success: deletes) }
        }
        return deleted
    }

    /// Compacts at the store's current revision, not at `position`: the deletes just made sit
    /// at later revisions, and a compaction before a delete keeps the deleted values. What is
    /// above the trim point stays readable (a compaction keeps each key's latest version); a
    /// watch resuming from before now reads the log by range instead, as after any compaction.
    public func compact(through position: LogPosition) async throws {
        do {
            let now = try await self.client.range(self.log.trimKey, keysOnly: true).revision
            try await self.client.compact(revision: max(Int64(position), now))
        } catch let error as EtcdError where error.code == .compacted {
            // Compacted there or beyond already (by etcd's own auto-compaction, say).
        } catch let error as EtcdError {
            throw EtcdCommandLog.storeError(error)
        }
    }

    private func etcd<T>(_ call: () async throws -> T) async throws -> T {
        do {
            return try await call()
        } catch let error as EtcdError {
            throw EtcdCommandLog.storeError(error)
        }
    }
}

/// The partition a trim toward one trim point goes on from.
final class TrimCursor: Sendable {
    private let state = Mutex<(position: LogPosition, partition: Int)>((0, 0))

    /// Where to start for `position`: the first partition when the trim point moved.
    func start(for position: LogPosition) -> Int {
        self.state.withLock { $0.position == position ? $0.partition : 0 }
    }

    func store(_ partition: Int, for position: LogPosition) {
        self.state.withLock { $0 = (position, partition) }
    }
}
