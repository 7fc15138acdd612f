import HeraldCluster
import HeraldEtcd
import HeraldStore
import HeraldTestTraits
import HeraldTesting
import Logging
import Testing

/// Membership against real etcd: nodes see each other join, a killed node's partitions move a
/// lease TTL later, a node that shuts down leaves at once.
// Serialized: each test starts etcd members on ports picked free just before.
@Suite(.serialized, .loadHeavy) struct MembershipTests {
    /// Timeouts that bound a hang: a member on a loaded machine may take seconds to answer.
    static func client(_ endpoints: [String]) -> EtcdClient.Configuration {
        var configuration = EtcdClient.Configuration(endpoints: endpoints)
        configuration.requestTimeout = TestTime.bound(.seconds(30))
        configuration.connectTimeout = TestTime.bound(.seconds(10))
        return configuration
    }

    @Test func membersSeeEachOtherAndALeavingMembersPartitionsMove() async throws {
        try #require(EtcdCluster.isInstalled, "etcd-server is not installed (scripts/install-deps.sh installs it)")
        try await withTemporaryDirectory { directory in
            let etcd = try await EtcdCluster.start(members: 1, in: directory)
            let client = EtcdClient(configuration: Self.client(etcd.endpoints))
            func member(_ id: String) -> Membership {
                var configuration = Membership.Configuration(nodeID: id, url: "http://127.0.0.1:1/\(id)")
                configuration.partitions = 64
                // Long enough that a loaded machine (the whole suite starts many etcd members)
                // does not let a live member's lease lapse between keep-alives.
                configuration.leaseTTL = 5
                return Membership(configuration: configuration, backend: EtcdMembership(client: client, prefix: "herald/"), logger: Logger(label: id))
            }
            let first = member("node1")
            let second = member("node2")
            let runFirst = Task { try await first.run() }
            let runSecond = Task { try await second.run() }
            // Generous: when the whole suite starts, many etcd members start at once and the
            // first lease grant can take seconds; the wait ends as soon as both are in.
            try await waitUntil("both see two members", within: .seconds(60), observing: { (first.snapshot.members.count, second.snapshot.members.count) }) { $0 == (2, 2) }
            #expect(first.snapshot.map == second.snapshot.map)
            #expect(first.ownedPartitions.count + second.ownedPartitions.count == 64)
            #expect(Set(first.ownedPartitions).isDisjoint(with: second.ownedPartitions))

            // Cancelling without graceful shutdown is a crash as far as etcd can tell: the key
            // goes when the lease runs out, and the survivor then owns everything.
            runSecond.cancel()
            _ = try? await runSecond.value
            try await waitUntil("the survivor is the only member", within: .seconds(60), observing: { first.snapshot.members.map(\.id) }) { $0 == ["node1"] }
            #expect(first.ownedPartitions.count == 64)

            // A second node under a live id waits instead of taking it over.
            let impostor = member("node1")
            let runImpostor = Task { try await impostor.run() }
            try await waitUntil("the impostor is refused the live id", within: .seconds(60), observing: { impostor.snapshot.idTakenRefusals }) { $0 >= 1 }
            #expect(!impostor.snapshot.registered)
            #expect(first.snapshot.members.map(\.url) == ["http://127.0.0.1:1/node1"])
            runImpostor.cancel()
            _ = try? await runImpostor.value

            runFirst.cancel()
            _ = try? await runFirst.value
            try await client.shutdown()
            await etcd.stop()
        }
    }

    @Test func aNodeJoinsOnlyOnceItSaysItIsReady() async throws {
        try #require(EtcdCluster.isInstalled, "etcd-server is not installed (scripts/install-deps.sh installs it)")
        try await withTemporaryDirectory { directory in
            let etcd = try await EtcdCluster.start(members: 1, in: directory)
            let client = EtcdClient(configuration: Self.client(etcd.endpoints))
            let gate = PositionSignal(position: 0)
            var configuration = Membership.Configuration(nodeID: "late", url: "http://127.0.0.1:1/late")
            configuration.leaseTTL = 2
            configuration.readyToJoin = { _ = try? await gate.wait(beyond: 0) }
            let early = Membership(configuration: .init(nodeID: "early", url: "http://127.0.0.1:1/early"), backend: EtcdMembership(client: client, prefix: "herald/"), logger: Logger(label: "early"))
            let runningEarly = Task { try await early.run() }
            let late = Membership(configuration: configuration, backend: EtcdMembership(client: client, prefix: "herald/"), logger: Logger(label: "late"))
            let running = Task { try await late.run() }
            // While it catches up it is no member, but knows who owns what, to forward.
            try await waitUntil("the late node sees the early one", within: .seconds(60), observing: { late.snapshot.members.map(\.id) }) { $0 == ["early"] }
            #expect(!late.snapshot.registered)
            #expect(try await client.range(Array("herald/members/late".utf8)).keyValues.isEmpty, "no member key before it is ready")
            gate.advance(to: 1)
            try await waitUntil("the late node joins", within: .seconds(60), observing: { (late.snapshot.registered, late.snapshot.members.map(\.id)) }) { $0.0 && $0.1 == ["early", "late"] }
            running.cancel()
            _ = try? await running.value
            runningEarly.cancel()
            _ = try? await runningEarly.value
            try await client.shutdown()
            await etcd.stop()
        }
    }
}
