extension EtcdClient {
    /// A new lease of `ttl` seconds (etcd grants at least 2); returns its id and granted TTL.
    public func grantLease(ttl: Int64) async throws -> (id: Int64, ttl: Int64) {
        let response = try await self.call("/v3/lease/grant", EtcdWire.LeaseGrantRequest(TTL: .init(ttl)), as: EtcdWire.LeaseGrantResponse.self, isWrite: true)
        guard let id = response.ID?.value, id != 0 else {
            throw EtcdError(.malformedResponse, "lease grant without an ID: \(response.error ?? "")")
        }
        return (id, response.TTL?.value ?? ttl)
    }

    /// Refreshes the lease; returns its TTL, 0 when it is gone (expired or revoked): the holder
    /// must grant a new one and put its keys again.
    public func keepAlive(lease id: Int64) async throws -> Int64 {
        let response = try await self.call("/v3/lease/keepalive", EtcdWire.LeaseIDRequest(ID: .init(id)), as: EtcdWire.LeaseKeepAliveResult.self, isWrite: false)
        return response.result?.TTL?.value ?? 0
    }

    /// Ends the lease now, deleting its keys.
    public func revoke(lease id: Int64) async throws {
        _ = try await self.call("/v3/lease/revoke", EtcdWire.LeaseIDRequest(ID: .init(id)), as: EtcdWire.PutResponse.self, isWrite: true)
    }
}
