import Foundation
public import HeraldCluster

/// Membership on etcd: a member is a key under `<prefix>members/<id>` holding its
/// `ClusterMember` JSON, attached to a lease; the member set is a range read of the prefix and
/// then a watch of it.
public struct EtcdMembership: MembershipBackend {
    let client: EtcdClient
    let prefix: String

    public init(client: EtcdClient, prefix: String) {
        self.client = client
        self.prefix = prefix
    }

    var membersPrefix: [UInt8] { Array((self.prefix + "members/").utf8) }

    func memberKey(_ id: String) -> [UInt8] { self.membersPrefix + Array(id.utf8) }

    public func join(as member: ClusterMember, ttl: Int64) async throws -> MemberLease {
        let granted = try await self.client.grantLease(ttl: ttl)
        let key = self.memberKey(member.id)
        let registered = try await self.client.txn(
            [EtcdCompare(key: key, .createRevision(0))],
            success: [.put(key: key, value: Array(try JSONEncoder().encode(member)), lease: granted.id)]
        )
        guard registered.succeeded else {
            try? await self.client.revoke(lease: granted.id)
            throw MembershipError.idTaken(member.id)
        }
        return MemberLease(id: granted.id, ttl: granted.ttl)
    }

    public func renew(_ lease: MemberLease) async throws -> Bool {
        do {
            return try await self.client.keepAlive(lease: lease.id) > 0
        } catch let error as EtcdError where error.code == .leaseNotFound {
            return false
        }
    }

    public func leave(_ lease: MemberLease) async throws {
        try await self.client.revoke(lease: lease.id)
    }

    public func followMembers(_ onChange: ([ClusterMember]) async -> Bool) async throws {
        let prefix = self.membersPrefix
        let current = try await self.client.range(prefix, rangeEnd: EtcdKey.prefixEnd(prefix))
        var members: [String: ClusterMember] = [:]
        for keyValue in current.keyValues {
            if let member = try? JSONDecoder().decode(ClusterMember.self, from: Data(keyValue.value)) { members[member.id] = member }
        }
        guard await onChange(Array(members.values)) else { return }
        for try await batch in self.client.watch(prefix: prefix, from: current.revision + 1, includeDeletes: true, silenceLimit: .seconds(30)) {
            for event in batch.events {
                let id = String(decoding: event.keyValue.key.dropFirst(prefix.count), as: UTF8.self)
                if event.isDelete {
                    members[id] = nil
                } else if let member = try? JSONDecoder().decode(ClusterMember.self, from: Data(event.keyValue.value)) {
                    members[member.id] = member
                }
            }
            guard await onChange(Array(members.values)) else { return }
        }
    }
}
