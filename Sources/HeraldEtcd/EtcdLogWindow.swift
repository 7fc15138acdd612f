public import HeraldCluster
public import HeraldStore

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

    public init(client: EtcdClient, log: EtcdCommandLog) {
        self.client = client
        self.log = log
    }

    var prefix: String { self.log.configuration.prefix }
    var appliedPrefix: [UInt8] { Array((self.prefix + "applied/").utf8) }
    var trimmerKey: [UInt8] { Array((self.prefix + "trimmer").utf8) }

    public func publishApplied(_ position: LogPosition, member: String, lease: MemberLease) async throws {
        try await self.etcd { try await self.client.put(self.appliedPrefix + Array(member.utf8), Array(String(position).utf8), lease: lease.id) }
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
            try await self.etcd { try await self.client.put(self.log.trimKey, Array(String(position).utf8)) }
        }
        var deletes: [EtcdOperation] = []
        var deleted = 0
        for partition in 0..<self.log.configuration.partitions where deleted < limit {
            let prefix = Array((self.prefix + "log/" + EtcdCommandLog.partitionName(partition) + "/").utf8)
            let keys = try await self.etcd {
                try await self.client.range(prefix, rangeEnd: EtcdKey.prefixEnd(prefix), limit: Int64(max(limit - deleted, 1)), keysOnly: true)
            }
            let trimmed = keys.keyValues.prefix { LogPosition($0.modRevision) <= position }
            guard let last = trimmed.last else { continue }
            deletes.append(.delete(key: prefix, rangeEnd: last.key + [0]))
            deleted += trimmed.count
            // etcd takes 128 operations in one transaction by default.
            if deletes.count == 64 {
                _ = try await self.etcd { try await self.client.txn([], success: deletes) }
                deletes = []
            }
        }
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
