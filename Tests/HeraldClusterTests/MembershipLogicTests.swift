import HeraldCluster
import HeraldTesting
import Logging
import ServiceLifecycle
import Testing

/// `Membership`'s own logic on an in-memory backend: what it does when its lease is lost, when
/// the backend cannot be reached, and when its id is taken. The same against etcd, with real
/// leases running out, is `MembershipTests` in HeraldEtcdTests.
@Suite struct MembershipLogicTests {
    func member(_ id: String, _ backend: InMemoryMembership) -> Membership {
        var configuration = Membership.Configuration(nodeID: id, url: "http://127.0.0.1:1/\(id)")
        configuration.partitions = 16
        configuration.leaseTTL = 2
        return Membership(configuration: configuration, backend: backend, logger: Logger(label: id))
    }

    @Test func aMemberWhoseLeaseIsLostJoinsAgain() async throws {
        let backend = InMemoryMembership()
        let node = self.member("node1", backend)
        let running = Task { try await node.run() }
        try await waitUntil("node1 registers", observing: { (node.snapshot.registered, node.snapshot.members.map(\.id)) }) { $0.0 && $0.1 == ["node1"] }
        #expect(node.ownedPartitions.count == 16)

        backend.expire("node1")
        // The next renewal finds the lease gone and joins under a new one.
        try await waitUntil("node1 joins again", within: .seconds(60), observing: { (backend.joins, backend.memberIDs) }) { $0.0 == 2 && $0.1 == ["node1"] }
        try await waitUntil("node1 sees itself again", observing: { node.snapshot.members.map(\.id) }) { $0 == ["node1"] }
        running.cancel()
        _ = try? await running.value
    }

    @Test func anUnreachableBackendIsReportedWithoutGivingUpTheLease() async throws {
        let backend = InMemoryMembership()
        let node = self.member("node1", backend)
        let running = Task { try await node.run() }
        try await waitUntil("node1 registers", observing: { node.snapshot.registered }) { $0 }
        backend.setUnreachable(true)
        try await waitUntil("the backend is reported unreachable", within: .seconds(60), observing: { node.snapshot.backendReachable }) { !$0 }
        #expect(node.snapshot.registered, "a failed renewal is not a lost lease")
        backend.setUnreachable(false)
        try await waitUntil("the backend is reachable again", within: .seconds(60), observing: { node.snapshot.backendReachable }) { $0 }
        #expect(backend.joins == 1, "the same lease carried on")
        running.cancel()
        _ = try? await running.value
    }

    @Test func aSecondNodeUnderALiveIDWaitsAndAGracefulLeaverGoesAtOnce() async throws {
        let backend = InMemoryMembership()
        let first = self.member("node1", backend)
        let second = self.member("node2", backend)
        let impostor = self.member("node1", backend)
        let group = ServiceGroup(configuration: .init(services: [first, second], logger: Logger(label: "test")))
        let running = Task { try await group.run() }
        // Generous: early in a suite run on two busy cores the group's tasks may wait long for a
        // thread (seen: 30 s in a fresh-clone CI beside a release build); this bounds a hang.
        try await waitUntil("both see two members", within: .seconds(120), observing: { (first.snapshot.members.count, second.snapshot.members.count) }) { $0 == (2, 2) }
        #expect(Set(first.ownedPartitions).isDisjoint(with: second.ownedPartitions))
        #expect(first.ownedPartitions.count + second.ownedPartitions.count == 16)

        let runningImpostor = Task { try await impostor.run() }
        try await waitUntil("the impostor is refused", within: .seconds(60), observing: { impostor.snapshot.idTakenRefusals }) { $0 >= 1 }
        #expect(!impostor.snapshot.registered)
        #expect(backend.memberIDs == ["node1", "node2"])
        runningImpostor.cancel()
        _ = try? await runningImpostor.value

        // Graceful shutdown leaves: the backend holds no member once the group has returned.
        await group.triggerGracefulShutdown()
        try await running.value
        #expect(backend.memberIDs.isEmpty)
    }
}
