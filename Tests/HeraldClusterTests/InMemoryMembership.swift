import HeraldCluster
import Synchronization

/// A membership backend in memory, for testing `Membership`'s own logic without etcd: leases
/// never expire by time; a test drops one (`expire`) as a TTL ending would, or makes the backend
/// unreachable.
final class InMemoryMembership: MembershipBackend {
    private struct State {
        var members: [Int64: ClusterMember] = [:]
        var nextLease: Int64 = 1
        var unreachable = false
        var followers: [Int: AsyncStream<[ClusterMember]>.Continuation] = [:]
        var nextFollower = 0
        var joins = 0
    }

    private let state = Mutex(State())

    /// Joins granted so far.
    var joins: Int { self.state.withLock { $0.joins } }

    var memberIDs: [String] { self.state.withLock { $0.members.values.map(\.id).sorted() } }

    /// Calls fail with this while set, as a backend that cannot be reached.
    func setUnreachable(_ unreachable: Bool) {
        self.state.withLock { $0.unreachable = unreachable }
    }

    /// Ends `id`'s lease as a TTL running out would.
    func expire(_ id: String) {
        self.change { state in state.members = state.members.filter { $0.value.id != id } }
    }

    struct Unreachable: Error {}

    func join(as member: ClusterMember, ttl: Int64) async throws -> MemberLease {
        var lease: Int64 = 0
        try self.change { state in
            guard !state.unreachable else { throw Unreachable() }
            guard !state.members.values.contains(where: { $0.id == member.id }) else { throw MembershipError.idTaken(member.id) }
            lease = state.nextLease
            state.nextLease += 1
            state.members[lease] = member
            state.joins += 1
        }
        return MemberLease(id: lease, ttl: max(ttl, 2))
    }

    func renew(_ lease: MemberLease) async throws -> Bool {
        try self.state.withLock { state in
            guard !state.unreachable else { throw Unreachable() }
            return state.members[lease.id] != nil
        }
    }

    func leave(_ lease: MemberLease) async throws {
        self.change { $0.members[lease.id] = nil }
    }

    func followMembers(_ onChange: ([ClusterMember]) async -> Bool) async throws {
        let (stream, continuation) = AsyncStream.makeStream(of: [ClusterMember].self, bufferingPolicy: .bufferingNewest(1))
        let id = self.state.withLock { state in
            defer { state.nextFollower += 1 }
            state.followers[state.nextFollower] = continuation
            continuation.yield(Array(state.members.values))
            return state.nextFollower
        }
        defer { _ = self.state.withLock { $0.followers.removeValue(forKey: id) } }
        for await members in stream {
            guard await onChange(members) else { return }
        }
        throw CancellationError()
    }

    private func change(_ body: (inout State) throws -> Void) rethrows {
        try self.state.withLock { state in
            try body(&state)
            for follower in state.followers.values { follower.yield(Array(state.members.values)) }
        }
    }
}
