extension EtcdClient {
    /// Keys in `[key, rangeEnd)` (or `key` alone), in key order (or by the revision of their
    /// last change), at the latest revision or at `revision`. Linearizable unless `serializable`.
    public func range(
        _ key: [UInt8],
        rangeEnd: [UInt8]? = nil,
        revision: Int64? = nil,
        limit: Int64? = nil,
        minModRevision: Int64? = nil,
        sortByModRevision: Bool = false,
        newestFirst: Bool = false,
        keysOnly: Bool = false,
        serializable: Bool = false
    ) async throws -> EtcdRangeResult {
        let request = EtcdWire.RangeRequest(
            key: .init(key),
            range_end: rangeEnd.map(EtcdWire.Bytes.init),
            limit: limit.map(EtcdWire.Int64String.init),
            revision: revision.map(EtcdWire.Int64String.init),
            sort_order: sortByModRevision ? (newestFirst ? "DESCEND" : "ASCEND") : nil,
            sort_target: sortByModRevision ? "MOD" : nil,
            serializable: serializable ? true : nil,
            keys_only: keysOnly ? true : nil,
            min_mod_revision: minModRevision.map(EtcdWire.Int64String.init)
        )
        let response = try await self.call("/v3/kv/range", request, as: EtcdWire.RangeResponse.self, isWrite: false)
        return EtcdRangeResult(
            keyValues: (response.kvs ?? []).map(EtcdKeyValue.init),
            more: response.more ?? false,
            revision: response.header?.revision?.value ?? 0,
            clusterID: response.header?.cluster_id?.value ?? 0
        )
    }

    /// Writes `value` at `key`; returns the new revision.
    @discardableResult
    public func put(_ key: [UInt8], _ value: [UInt8], lease: Int64? = nil) async throws -> Int64 {
        let request = EtcdWire.PutRequest(key: .init(key), value: .init(value), lease: lease.map(EtcdWire.Int64String.init))
        let response = try await self.call("/v3/kv/put", request, as: EtcdWire.PutResponse.self, isWrite: true)
        return response.header?.revision?.value ?? 0
    }

    /// Deletes `key` (or `[key, rangeEnd)`); returns how many keys went.
    @discardableResult
    public func delete(_ key: [UInt8], rangeEnd: [UInt8]? = nil) async throws -> Int64 {
        let request = EtcdWire.DeleteRangeRequest(key: .init(key), range_end: rangeEnd.map(EtcdWire.Bytes.init))
        let response = try await self.call("/v3/kv/deleterange", request, as: EtcdWire.DeleteRangeResponse.self, isWrite: true)
        return response.deleted?.value ?? 0
    }

    /// Runs `success` when every compare holds, else `failure`, as one revision.
    public func txn(_ compare: [EtcdCompare], success: [EtcdOperation], failure: [EtcdOperation] = []) async throws -> EtcdTxnResult {
        let request = EtcdWire.TxnRequest(compare: compare.map(\.wire), success: success.map(\.wire), failure: failure.map(\.wire))
        let response = try await self.call("/v3/kv/txn", request, as: EtcdWire.TxnResponse.self, isWrite: true)
        let ranges = (response.responses ?? []).compactMap { $0.response_range.map { ($0.kvs ?? []).map(EtcdKeyValue.init) } }
        return EtcdTxnResult(succeeded: response.succeeded ?? false, revision: response.header?.revision?.value ?? 0, ranges: ranges)
    }

    /// Drops history before `revision` (the window every live node has applied).
    public func compact(revision: Int64) async throws {
        _ = try await self.call("/v3/kv/compaction", EtcdWire.CompactionRequest(revision: .init(revision), physical: true), as: EtcdWire.PutResponse.self, isWrite: true)
    }
}
