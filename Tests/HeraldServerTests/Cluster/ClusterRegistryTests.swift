import Foundation
import HeraldConfig
import HeraldCrypto
import HeraldServer
import HeraldStatus
import HeraldStore
import HeraldTesting
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOFoundationCompat
import Testing

/// Nodes sharing one etcd: a registration written through one node is answered by every node.
@Suite struct ClusterRegistryTests {
    /// Nodes with the Status front door (one server key for the cluster), each with its own store.
    func withNodes(_ count: Int, _ body: ([HeraldNode], Secp256k1PrivateKey) async throws -> Void) async throws {
        try await self.withNodes(count) { nodes, key, _ in try await body(nodes, key) }
    }

    func withNodes(_ count: Int, _ body: ([HeraldNode], Secp256k1PrivateKey, [HeraldConfiguration]) async throws -> Void) async throws {
        try await self.withNodes(count, etcdMembers: 1) { nodes, key, configurations, _ in try await body(nodes, key, configurations) }
    }

    /// The same, also handing over each node's configuration (to build a node again on its store)
    /// and the etcd members.
    func withNodes(
        _ count: Int,
        etcdMembers: Int,
        _ body: ([HeraldNode], Secp256k1PrivateKey, [HeraldConfiguration], EtcdCluster) async throws -> Void
    ) async throws {
        try #require(EtcdCluster.isInstalled, "etcd-server is not installed (scripts/install-deps.sh installs it)")
        try await withTemporaryDirectory { directory in
            let etcd = try await EtcdCluster.start(members: etcdMembers, in: directory)
            defer { Task { await etcd.stop() } }
            let serverKey = Secp256k1PrivateKey()
            try StatusIdentity.write(serverKey, toFile: directory + "/status.key")
            var nodes: [HeraldNode] = []
            var configurations: [HeraldConfiguration] = []
            for index in 0..<count {
                let effective = try await HeraldConfiguration.load(
                    from: ConfigurationSources(
                        arguments: [
                            "--store-path", "\(directory)/node\(index)",
                            "--status-identity-key-file", directory + "/status.key",
                            // Registrations and queries push nothing; the front door needs a way to push all the same.
                            "--status-gorush-url", "http://127.0.0.1:9/api/push",
                            "--cluster-etcd-endpoints", etcd.endpoints.joined(separator: ","),
                            "--cluster-partitions", "16",
                            "--cluster-node-id", "node\(index)",
                            "--cluster-request-timeout", "3s",
                        ],
                        defaultFilePath: "/nonexistent/herald.yaml"
                    )
                )
                configurations.append(effective.configuration)
                nodes.append(try HeraldNode.build(configuration: effective.configuration, logger: Logger(label: "node\(index)")))
            }
            try await body(nodes, serverKey, configurations, etcd)
            await etcd.stop()
        }
    }

    func post(_ message: WakuMessage, to client: some TestClientProtocol) async throws -> [WakuMessage] {
        let response = try await client.execute(uri: "/waku/v1/messages", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(data: try JSONEncoder().encode(message)))
        #expect(response.status == .ok)
        return try JSONDecoder().decode([WakuMessage].self, from: Data(buffer: response.body))
    }

    @Test func aRegistrationThroughOneNodeIsFoundByAQueryThroughAnother() async throws {
        try await withNodes(2) { nodes, serverKey in
            let identity = Secp256k1PrivateKey()
            let client = StatusClient(identity: identity, server: serverKey.publicKey)
            try await nodes[0].application.test(.router) { first in
                try await nodes[1].application.test(.router) { second in
                    // status-go refuses access tokens that are not UUIDs.
                    let accessToken = UUID().uuidString.lowercased()
                    let registration = try client.registration(
                        installationID: UUID().uuidString.lowercased(),
                        version: 1,
                        accessToken: accessToken,
                        deviceToken: String(repeating: "ab", count: 32),
                        apnTopic: "im.status.ethereum"
                    )
                    let registered = try await post(registration, to: first)
                    try #require(registered.count == 1)
                    let response = try StatusAnswer(registered[0], openedWith: identity).registrationResponse()
                    #expect(response.success, "\(response.error)")

                    // The other node applies the entry from etcd and joins the query topic; ask
                    // until it has (bounded).
                    let ephemeral = Secp256k1PrivateKey()
                    var info: [String] = []
                    let deadline = ContinuousClock.now + .seconds(20)
                    while info.isEmpty, ContinuousClock.now < deadline {
                        let answers = try await post(try client.query(for: client.hashedKey, ephemeral: ephemeral), to: second)
                        if let answer = answers.first {
                            info = try StatusAnswer(answer, openedWith: ephemeral).queryResponse().info.map(\.accessToken)
                        } else {
                            try await Task.sleep(for: .milliseconds(50))
                        }
                    }
                    #expect(info == [accessToken])
                    #expect(try nodes[1].store.view.recordCount() == 1)
                    #expect(try nodes[0].store.view.appliedPosition() == nodes[1].store.view.appliedPosition())

                    // Both nodes list both members and split the partitions between them.
                    var owned: [Int] = []
                    for client in [first, second] as [any TestClientProtocol] {
                        let deadline = ContinuousClock.now + .seconds(10)
                        var status: [String: Any] = [:]
                        while ContinuousClock.now < deadline {
                            let response = try await client.execute(uri: "/cluster", method: .get)
                            status = (try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]) ?? [:]
                            if (status["members"] as? [Any])?.count == 2 { break }
                            try await Task.sleep(for: .milliseconds(50))
                        }
                        #expect(status["mode"] as? String == "cluster")
                        #expect((status["members"] as? [Any])?.count == 2)
                        owned += status["owned"] as? [Int] ?? []
                    }
                    #expect(owned.sorted() == Array(0..<16))
                }
            }
        }
    }

    @Test func concurrentReRegistrationsThroughDifferentNodesLetExactlyOneVersionWin() async throws {
        try await withNodes(2) { nodes, serverKey in
            let identity = Secp256k1PrivateKey()
            let client = StatusClient(identity: identity, server: serverKey.publicKey)
            let installation = UUID().uuidString.lowercased()
            @Sendable func registration(_ version: UInt64, token: Int) throws -> WakuMessage {
                try client.registration(
                    installationID: installation,
                    version: version,
                    accessToken: UUID().uuidString.lowercased(),
                    deviceToken: String(format: "%064x", token),
                    apnTopic: "im.status.ethereum"
                )
            }
            try await nodes[0].application.test(.router) { first in
                try await nodes[1].application.test(.router) { second in
                    let registered = try await post(try registration(1, token: 1), to: first)
                    #expect(try StatusAnswer(registered[0], openedWith: identity).registrationResponse().success)
                    // Three version-2 registrations through each node at once.
                    let messages = try (0..<6).map { try registration(2, token: 100 + $0) }
                    let answers = try await withThrowingTaskGroup(of: [WakuMessage].self) { group in
                        for (index, message) in messages.enumerated() {
                            let target: any TestClientProtocol = index % 2 == 0 ? first : second
                            group.addTask { try await post(message, to: target) }
                        }
                        return try await group.reduce(into: [WakuMessage]()) { $0 += $1 }
                    }
                    let responses = try answers.map { try StatusAnswer($0, openedWith: identity).registrationResponse() }
                    #expect(responses.count == 6, "every registration is answered")
                    #expect(responses.filter(\.success).count == 1)
                    #expect(responses.filter { !$0.success }.allSatisfy { $0.error == .versionMismatch })
                }
            }
        }
    }

    @Test func aRestartedNodeCatchesUpFromItsAppliedRevisionAndBecomesReady() async throws {
        try await withNodes(2) { nodes, serverKey, configurations in
            let identity = Secp256k1PrivateKey()
            let client = StatusClient(identity: identity, server: serverKey.publicKey)
            @Sendable func registration(_ installation: String) throws -> WakuMessage {
                try client.registration(
                    installationID: installation,
                    version: 1,
                    accessToken: UUID().uuidString.lowercased(),
                    deviceToken: String(repeating: "cd", count: 32),
                    apnTopic: "im.status.ethereum"
                )
            }
            try await nodes[0].application.test(.router) { first in
                _ = try await post(try registration(UUID().uuidString.lowercased()), to: first)
                let written = try nodes[0].store.view.appliedPosition()
                try await nodes[1].application.test(.router) { _ in
                    _ = try await nodes[1].store.view.waitForApplied(beyond: written - 1)
                }
                // Node 1 is down (its store closed); the cluster goes on without it.
                let applied = try LocalStore(path: configurations[1].store.path)
                let appliedBefore = try applied.view.appliedPosition()
                try await applied.close()
                #expect(appliedBefore == written)
                for _ in 0..<5 { _ = try await post(try registration(UUID().uuidString.lowercased()), to: first) }
                let head = try nodes[0].store.view.appliedPosition()
                #expect(head > written)

                let restarted = try HeraldNode.build(configuration: configurations[1], logger: Logger(label: "node1-again"))
                try await restarted.application.test(.router) { second in
                    var ready = false
                    let deadline = ContinuousClock.now + .seconds(20)
                    while !ready, ContinuousClock.now < deadline {
                        let response = try await second.execute(uri: "/readyz", method: .get)
                        let applied = try restarted.store.view.appliedPosition()
                        ready = response.status == .ok && applied >= head
                        if !ready { try await Task.sleep(for: .milliseconds(50)) }
                    }
                    #expect(ready)
                    #expect(try restarted.store.view.recordCount() == 6)
                }
            }
        }
    }

    @Test func losingOneEtcdMemberKeepsWritesGoingAndLosingQuorumLeavesRegistrationsUnanswered() async throws {
        try await withNodes(1, etcdMembers: 3) { nodes, serverKey, _, etcd in
            let identity = Secp256k1PrivateKey()
            let client = StatusClient(identity: identity, server: serverKey.publicKey)
            let installation = UUID().uuidString.lowercased()
            @Sendable func registration(_ version: UInt64) throws -> WakuMessage {
                try client.registration(
                    installationID: installation,
                    version: version,
                    accessToken: UUID().uuidString.lowercased(),
                    deviceToken: String(repeating: "ef", count: 32),
                    apnTopic: "im.status.ethereum"
                )
            }
            try await nodes[0].application.test(.router) { node in
                let first = try await post(try registration(1), to: node)
                #expect(try StatusAnswer(first[0], openedWith: identity).registrationResponse().success)

                await etcd.kill(0)
                // A majority remains. If the killed member led, a write caught in the election
                // goes unanswered and the client sends again, as status-go's client does.
                var version: UInt64 = 2
                var answered = false
                let deadline = ContinuousClock.now + .seconds(40)
                while !answered, ContinuousClock.now < deadline {
                    let answers = try await post(try registration(version), to: node)
                    if let answer = answers.first {
                        answered = try StatusAnswer(answer, openedWith: identity).registrationResponse().success
                    }
                    version += 1
                }
                #expect(answered, "writes continue with two of three etcd members")

                await etcd.kill(1)
                let withoutQuorum = try await post(try registration(version), to: node)
                #expect(withoutQuorum.isEmpty, "no answer without quorum, as status-go gives none when its store fails")
                let ready = try await node.execute(uri: "/readyz", method: .get)
                #expect(ready.status == .serviceUnavailable)
            }
        }
    }
}
