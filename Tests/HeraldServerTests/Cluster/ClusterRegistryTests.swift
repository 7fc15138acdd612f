import Foundation
import HeraldCluster
import HeraldConfig
import HeraldCore
import HeraldCrypto
import HeraldEtcd
import HeraldFrontDoor
import HeraldServer
import HeraldStatus
import HeraldStore
import HeraldTestTraits
import HeraldTesting
import AsyncHTTPClient
import Hummingbird
import NIOHTTP1
import ServiceLifecycle
import Logging
import NIOCore
import NIOFoundationCompat
import Testing

/// Nodes sharing one etcd, each listening on 127.0.0.1: a registration written through any node
/// is written by its partition's owner and answered by every node.
// Serialized: each test starts etcd members and nodes on ports picked free just before, and
// tests running side by side could pick each other's.
@Suite(.serialized, .loadHeavy) struct ClusterRegistryTests {
    /// Nodes with the Status front door (one server key for the cluster), each with its own store.
    func withNodes(_ count: Int, _ body: ([HeraldNode], Secp256k1PrivateKey) async throws -> Void) async throws {
        try await self.withNodes(count) { nodes, key, _ in try await body(nodes, key) }
    }

    func withNodes(_ count: Int, _ body: ([HeraldNode], Secp256k1PrivateKey, [HeraldConfiguration]) async throws -> Void) async throws {
        try await self.withNodes(count, etcdMembers: 1) { nodes, key, configurations, _ in try await body(nodes, key, configurations) }
    }

    /// The same, also handing over each node's configuration (to build a node again on its store)
    /// and the etcd members. Only the first `built` nodes are built (all by default).
    func withNodes(
        _ count: Int,
        etcdMembers: Int,
        gorushURL: String = "http://127.0.0.1:9/api/push",
        frontDoors: [any FrontDoor.Type] = HeraldNode.frontDoors,
        arguments extraArguments: [String] = [],
        built: Int? = nil,
        _ body: ([HeraldNode], Secp256k1PrivateKey, [HeraldConfiguration], EtcdCluster) async throws -> Void
    ) async throws {
        try #require(EtcdCluster.isInstalled, "etcd-server is not installed (scripts/install-deps.sh installs it)")
        try await withTemporaryDirectory { directory in
            let etcd = try await EtcdCluster.start(members: etcdMembers, in: directory)
            do {
                let serverKey = Secp256k1PrivateKey()
                try StatusIdentity.write(serverKey, toFile: directory + "/status.key")
                var nodes: [HeraldNode] = []
                var configurations: [HeraldConfiguration] = []
                for index in 0..<count {
                    // A real listener on a port known in advance: the other nodes forward to it.
                    let port = try EtcdCluster.freePort()
                    let effective = try await HeraldConfiguration.load(
                        from: ConfigurationSources(
                            arguments: [
                                "--store-path", "\(directory)/node\(index)",
                                "--status-identity-key-file", directory + "/status.key",
                                // Registrations and queries push nothing; the front door needs a way to push all the same.
                                "--status-gorush-url", gorushURL,
                                "--cluster-etcd-endpoints", etcd.endpoints.joined(separator: ","),
                                "--store-encryption-key", EtcdCluster.testStoreKey,
                                "--cluster-partitions", "16",
                                "--cluster-node-id", "node\(index)",
                                "--server-port", "\(port)",
                                "--cluster-advertise-url", "http://127.0.0.1:\(port)",
                                // Bounds a hung etcd call; a node forwards for twice as long.
                                "--cluster-request-timeout", Self.configured(TestTime.bound(.seconds(10))),
                                "--cluster-secret", "cluster-secret-for-tests",
                            ] + extraArguments,
                            defaultFilePath: "/nonexistent/herald.yaml"
                        ),
                        frontDoors: frontDoors
                    )
                    configurations.append(effective.configuration)
                    // The others are configured only, for the test to build when it chooses.
                    guard index < built ?? count else { continue }
                    nodes.append(try HeraldNode.build(configuration: effective.configuration, logger: Logger(label: "node\(index)"), frontDoors: frontDoors))
                }
                try await body(nodes, serverKey, configurations, etcd)
            } catch {
                // The members are child processes that outlive a failed test unless stopped here.
                await etcd.stop()
                throw error
            }
            await etcd.stop()
        }
    }

    /// A duration as the configuration writes one, in milliseconds.
    private static func configured(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return "\(seconds * 1000 + attoseconds / 1_000_000_000_000_000)ms"
    }

    /// Waits (bounded) until every node is a member and sees `count` members, so each knows the
    /// owner of every partition.
    func waitForMembers(_ nodes: [HeraldNode], count: Int) async throws {
        try await waitUntil(
            "every node to be a member and see \(count) members",
            within: .seconds(60),
            every: .milliseconds(20),
            observing: {
                nodes.map { node -> (members: [String], registered: Bool) in
                    guard let snapshot = node.forwarder?.membership.snapshot else { return ([], false) }
                    return (snapshot.members.map(\.id), snapshot.registered)
                }
            }
        ) { $0.allSatisfy { $0.members.count == count && $0.registered } }
    }

    /// Runs `node` for real on its configured port (the other nodes forward to it) while `body`
    /// runs, then shuts it down gracefully.
    func running<T>(_ node: HeraldNode, _ body: (Int) async throws -> T) async throws -> T {
        let group = ServiceGroup(configuration: .init(services: [node.application], logger: Logger(label: "test")))
        let serving = Task { try await group.run() }
        let port = node.configuration.server.port
        do {
            try await waitUntil(
                "the node on port \(port) to answer /healthz with 200",
                within: .seconds(60),
                every: .milliseconds(20),
                observing: { try? await self.get("/healthz", port: port).status }
            ) { $0 == .ok }
            let result = try await body(port)
            await group.triggerGracefulShutdown()
            try await serving.value
            return result
        } catch {
            await group.triggerGracefulShutdown()
            _ = try? await serving.value
            throw error
        }
    }

    func get(_ path: String, port: Int) async throws -> (status: HTTPResponseStatus, body: ByteBuffer) {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)"), timeout: TimeAmount(TestTime.bound(.seconds(60))))
        return (response.status, try await response.body.collect(upTo: 1 << 20))
    }

    func post(_ message: WakuMessage, to port: Int) async throws -> [WakuMessage] {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/waku/v1/messages")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(data: try JSONEncoder().encode(message)))
        // Longer than a node takes to give up on etcd (each member in turn) or on the owner it
        // forwards to, so its own "no answer" reaches the test.
        let response = try await HTTPClient.shared.execute(request, timeout: TimeAmount(TestTime.bound(.seconds(60))))
        #expect(response.status == .ok)
        return try JSONDecoder().decode([WakuMessage].self, from: Data(buffer: try await response.body.collect(upTo: 16 << 20)))
    }

    @Test func aRegistrationThroughOneNodeIsFoundByAQueryThroughAnother() async throws {
        try await withNodes(2) { nodes, serverKey in
            let identity = Secp256k1PrivateKey()
            let client = StatusClient(identity: identity, server: serverKey.publicKey)
            try await running(nodes[0]) { first in
                try await running(nodes[1]) { second in
                    try await waitForMembers(nodes, count: 2)
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
                    // until it has (bounded), a new query each time.
                    let ephemeral = Secp256k1PrivateKey()
                    let answer = try await waitUntil(
                        "node1 to answer a query for the registration made through node0",
                        within: .seconds(60),
                        every: .milliseconds(50),
                        observing: { try await post(try client.query(for: client.hashedKey, ephemeral: ephemeral), to: second).first }
                    ) { $0 != nil }
                    let info = try StatusAnswer(try #require(answer), openedWith: ephemeral).queryResponse().info.map(\.accessToken)
                    #expect(info == [accessToken])
                    #expect(try nodes[1].store.view.recordCount() == 1)
                    // Whichever node wrote it, the other applies it from etcd in its own time.
                    try await waitUntil(
                        "both nodes to apply the log to the same position (observed: node0's, node1's)",
                        within: .seconds(60),
                        observing: { (try nodes[0].store.view.appliedPosition(), try nodes[1].store.view.appliedPosition()) }
                    ) { $0.0 == $0.1 }

                    // Both nodes list both members and split the partitions between them.
                    var owned: [Int] = []
                    for port in [first, second] {
                        let status = try await waitUntil(
                            "the node on port \(port) to list 2 members on /cluster",
                            within: .seconds(60),
                            every: .milliseconds(50),
                            observing: { () async throws -> [String: Any] in
                                let response = try await get("/cluster", port: port)
                                return (try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]) ?? [:]
                            }
                        ) { ($0["members"] as? [Any])?.count == 2 }
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
            try await running(nodes[0]) { first in
                try await running(nodes[1]) { second in
                    try await waitForMembers(nodes, count: 2)
                    let registered = try await post(try registration(1, token: 1), to: first)
                    let answer = try #require(registered.first, "version 1 was not answered")
                    #expect(try StatusAnswer(answer, openedWith: identity).registrationResponse().success)
                    // Three version-2 registrations through each node at once.
                    let messages = try (0..<6).map { try registration(2, token: 100 + $0) }
                    let answers = try await withThrowingTaskGroup(of: [WakuMessage].self) { group in
                        for (index, message) in messages.enumerated() {
                            let target = index % 2 == 0 ? first : second
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
            try await running(nodes[0]) { first in
                try await waitForMembers([nodes[0]], count: 1)
                _ = try await post(try registration(UUID().uuidString.lowercased()), to: first)
                let written = try nodes[0].store.view.appliedPosition()
                try await running(nodes[1]) { _ in
                    try await waitUntil("node1 to apply the log up to \(written)", within: .seconds(60)) {
                        try nodes[1].store.view.appliedPosition() >= written
                    }
                }
                // Node 1 left the membership on its graceful shutdown; node 0 owns everything again.
                try await waitForMembers([nodes[0]], count: 1)
                // Node 1 is down (its store closed); the cluster goes on without it.
                let applied = try LocalStore(path: configurations[1].store.path)
                let appliedBefore = try applied.view.appliedPosition()
                try await applied.close()
                #expect(appliedBefore == written)
                for _ in 0..<5 { _ = try await post(try registration(UUID().uuidString.lowercased()), to: first) }
                let head = try nodes[0].store.view.appliedPosition()
                #expect(head > written)

                let restarted = try HeraldNode.build(configuration: configurations[1], logger: Logger(label: "node1-again"))
                try await running(restarted) { second in
                    try await waitUntil(
                        "the restarted node1 to be ready with the log applied up to \(head) (observed: /readyz, applied position)",
                        within: .seconds(60),
                        every: .milliseconds(50),
                        observing: { () async throws -> (readyz: HTTPResponseStatus, applied: LogPosition) in
                            let response = try await get("/readyz", port: second)
                            return (response.status, try restarted.store.view.appliedPosition())
                        }
                    ) { $0.readyz == .ok && $0.applied >= head }
                    #expect(try restarted.store.view.recordCount() == 6)
                }
            }
        }
    }

    @Test func aNodeStartingWithAnEmptyStoreRestoresAMembersSnapshotAndFollowsTheLogFromIt() async throws {
        try await withNodes(2, etcdMembers: 1, built: 1) { nodes, serverKey, configurations, _ in
            let client = StatusClient(identity: Secp256k1PrivateKey(), server: serverKey.publicKey)
            try await running(nodes[0]) { first in
                try await waitForMembers([nodes[0]], count: 1)
                for _ in 0..<5 { _ = try await post(try registration(client), to: first) }
                let written = try nodes[0].store.view.appliedPosition()
                let header = try #require(
                    try await HeraldNode.restoreStoreFromPeer(configuration: configurations[1], logger: Logger(label: "node1-restore")),
                    "node1 found no member to take a snapshot from"
                )
                #expect(header.appliedPosition >= written, "the snapshot holds what node0 had applied")
                #expect(header.source == (try await nodes[0].log.source()))
                // Written after the snapshot: node1 gets them from the log, from the snapshot's position on.
                for _ in 0..<3 { _ = try await post(try registration(client), to: first) }
                let head = try nodes[0].store.view.appliedPosition()
                #expect(head > header.appliedPosition)
                let second = try HeraldNode.build(configuration: configurations[1], logger: Logger(label: "node1"))
                try await running(second) { port in
                    try await waitUntilReady(second, port: port, applied: head)
                    #expect(try second.store.view.digest() == nodes[0].store.view.digest(), "node1's view is node0's")
                    #expect(try second.store.view.recordCount() == 8)
                }
                // A store is there now: nothing is fetched again.
                #expect(try await HeraldNode.restoreStoreFromPeer(configuration: configurations[1], logger: Logger(label: "node1-again")) == nil)
            }
        }
    }

    @Test func theLogKeepsAWindowAndANodeAwayPastItRestoresASnapshotWhenItStarts() async throws {
        // Keeps nothing past what the live members applied, trimming five times a second.
        let window = ["--cluster-log-retention", "0", "--cluster-log-retention-duration", "0s", "--cluster-trim-interval", "200ms"]
        try await withNodes(2, etcdMembers: 1, arguments: window) { nodes, serverKey, configurations, _ in
            let client = StatusClient(identity: Secp256k1PrivateKey(), server: serverKey.publicKey)
            let log = try #require(nodes[0].log as? EtcdCommandLog)
            func logKeys() async throws -> Int {
                let prefix = log.logPrefix
                return try await log.client.range(prefix, rangeEnd: EtcdKey.prefixEnd(prefix), keysOnly: true).keyValues.count
            }
            try await running(nodes[0]) { first in
                try await waitForMembers([nodes[0]], count: 1)
                let away: LogPosition = try await running(nodes[1]) { _ in
                    try await waitForMembers([nodes[0], nodes[1]], count: 2)
                    for _ in 0..<3 { _ = try await post(try registration(client), to: first) }
                    let written = try nodes[0].store.view.appliedPosition()
                    try await waitUntil("node1 to apply the log up to \(written)", within: .seconds(60)) { try nodes[1].store.view.appliedPosition() >= written }
                    // Both applied it: the window closes behind them.
                    try await waitUntil("the trimmer to delete what both applied", within: .seconds(60), observing: { try await log.trimPoint() }) { $0 >= written }
                    return try nodes[1].store.view.appliedPosition()
                }
                // node1 is gone (its lease with it): the window no longer waits for it.
                for _ in 0..<5 { _ = try await post(try registration(client), to: first) }
                let head = try nodes[0].store.view.appliedPosition()
                try await waitUntil("the trim point to pass node1's \(away)", within: .seconds(60), observing: { try await log.trimPoint() }) { $0 > away }
                try await waitUntil("the log to hold no entry node0 applied", within: .seconds(60), observing: { try await logKeys() }) { $0 == 0 }

                // Started again, node1 finds its store below the trim point and restores node0's snapshot.
                let header = try #require(try await HeraldNode.restoreStoreFromPeer(configuration: configurations[1], logger: Logger(label: "node1-restore")))
                #expect(header.appliedPosition >= head)
                let again = try HeraldNode.build(configuration: configurations[1], logger: Logger(label: "node1-again"))
                try await running(again) { port in
                    try await waitUntilReady(again, port: port, applied: head)
                    #expect(try again.store.view.recordCount() == 8)
                    #expect(try again.store.view.digest() == nodes[0].store.view.digest())
                }
            }
        }
    }

    @Test func losingOneEtcdMemberKeepsWritesGoingAndLosingQuorumLeavesRegistrationsUnanswered() async throws {
        // Status pushes go to a stand-in gorush, so the test sees them leave.
        let gorush = try await WebhookReceiver.start()
        do {
            try await self.quorumLoss(gorush)
        } catch {
            await gorush.stop()
            throw error
        }
        await gorush.stop()
    }

    private func quorumLoss(_ gorush: WebhookReceiver) async throws {
        try await withNodes(1, etcdMembers: 3, gorushURL: gorush.gorushURL) { nodes, serverKey, _, etcd in
            let identity = Secp256k1PrivateKey()
            let client = StatusClient(identity: identity, server: serverKey.publicKey)
            let installation = UUID().uuidString.lowercased()
            let deviceToken = String(repeating: "ef", count: 32)
            @Sendable func registration(_ version: UInt64, accessToken: String = UUID().uuidString.lowercased()) throws -> WakuMessage {
                try client.registration(
                    installationID: installation,
                    version: version,
                    accessToken: accessToken,
                    deviceToken: deviceToken,
                    apnTopic: "im.status.ethereum"
                )
            }
            try await running(nodes[0]) { node in
                try await waitForMembers(nodes, count: 1)
                let first = try await post(try registration(1), to: node)
                let firstAnswer = try #require(first.first, "version 1 was not answered")
                #expect(try StatusAnswer(firstAnswer, openedWith: identity).registrationResponse().success)

                await etcd.kill(0)
                // A majority remains. If the killed member led, a write caught in the election
                // goes unanswered and the client sends again, as status-go's client does: a new
                // message, a version higher, each time.
                var version: UInt64 = 2
                var accessToken = ""
                try await waitUntil(
                    "a registration to succeed with two of three etcd members (observed: the last answer's success, nil when unanswered)",
                    within: .seconds(60),
                    every: .milliseconds(100),
                    observing: { () async throws -> Bool? in
                        accessToken = UUID().uuidString.lowercased()
                        let answers = try await post(try registration(version, accessToken: accessToken), to: node)
                        version += 1
                        return try answers.first.map { try StatusAnswer($0, openedWith: identity).registrationResponse().success }
                    }
                ) { $0 == true }

                await etcd.kill(1)
                let withoutQuorum = try await post(try registration(version), to: node)
                #expect(withoutQuorum.isEmpty, "no answer without quorum, as status-go gives none when its store fails")
                // Readiness reads the log head, which needs quorum.
                try await waitUntil(
                    "/readyz to answer 503 without etcd quorum",
                    within: .seconds(60),
                    every: .milliseconds(100),
                    observing: { try await get("/readyz", port: node).status }
                ) { $0 == .serviceUnavailable }

                // Pushes to the stored registration still go out: they only read the view.
                let sender = StatusClient(server: serverKey.publicKey)
                let ephemeral = Secp256k1PrivateKey()
                let request = Protobuf_PushNotificationRequest.notifying(client.hashedKey, installationID: installation, accessToken: accessToken)
                let pushed = try await post(try sender.pushRequest(request, ephemeral: ephemeral), to: node)
                try #require(pushed.count == 1, "a push request without etcd quorum is answered")
                let response = try StatusAnswer(pushed[0], openedWith: ephemeral).pushResponse()
                #expect(response.reports.first?.success == true)
                // The push leaves after the answer.
                let received = try await waitUntil(
                    "the push to reach the stand-in gorush",
                    within: .seconds(30),
                    every: .milliseconds(20),
                    observing: { gorush.received }
                ) { !$0.isEmpty }
                let tokens = received.compactMap { ($0["notifications"] as? [[String: Any]])?.first?["tokens"] as? [String] }
                #expect(tokens.first == [deviceToken])
            }
        }
    }

    @Test func aRegistrationIsWrittenByItsPartitionsOwnerWhicheverNodeReceivesIt() async throws {
        try await withNodes(2, etcdMembers: 1) { nodes, serverKey, _, etcd in
            try await running(nodes[0]) { first in
                try await running(nodes[1]) { second in
                    try await waitForMembers(nodes, count: 2)
                    var configuration = EtcdClient.Configuration(endpoints: etcd.endpoints)
                    configuration.requestTimeout = TestTime.bound(.seconds(30))
                    let client = EtcdClient(configuration: configuration)
                    // Shut down however the checks end: a debug build traps on a client dropped
                    // without it.
                    do {
                        var forwarded = 0
                        for _ in 0..<6 {
                            let identity = Secp256k1PrivateKey()
                            let status = StatusClient(identity: identity, server: serverKey.publicKey)
                            let forwarder = try #require(nodes[0].forwarder)
                            let partition = forwarder.partition(of: PartitionKey(scope: .status, subject: status.hashedKey))
                            guard case .forward(let owner) = forwarder.decide(partition: partition, forwardedFrom: nil) else {
                                // node0 owns it: send it through node1 instead, which forwards to node0.
                                let answers = try await post(try registration(status), to: second)
                                let answer = try #require(answers.first, "unanswered through node1")
                                #expect(try StatusAnswer(answer, openedWith: identity).registrationResponse().success)
                                #expect(try await head(partition, client) == "node0")
                                forwarded += 1
                                continue
                            }
                            #expect(owner.id == "node1")
                            let answers = try await post(try registration(status), to: first)
                            let answer = try #require(answers.first, "unanswered through node0")
                            #expect(try StatusAnswer(answer, openedWith: identity).registrationResponse().success)
                            #expect(try await head(partition, client) == "node1")
                            forwarded += 1
                        }
                        #expect(forwarded == 6)
                    } catch {
                        try? await client.shutdown()
                        throw error
                    }
                    try await client.shutdown()
                }
            }
        }
    }

    @Test func aMessageEveryNodesAdapterReceivesIsAnsweredOnceClusterWide() async throws {
        // With an nwaku adapter on each node, every node receives every message: the copies meet
        // at the owner of the sender's partition, which answers the first and drops the rest.
        try await withNodes(2) { nodes, serverKey in
            try await running(nodes[0]) { first in
                try await running(nodes[1]) { second in
                    try await waitForMembers(nodes, count: 2)
                    for _ in 0..<4 {
                        let identity = Secp256k1PrivateKey()
                        let client = StatusClient(identity: identity, server: serverKey.publicKey)
                        let message = try registration(client)
                        async let throughFirst = post(message, to: first)
                        async let throughSecond = post(message, to: second)
                        let answers = try await throughFirst + throughSecond
                        try #require(answers.count == 1)
                        #expect(try StatusAnswer(answers[0], openedWith: identity).registrationResponse().success)

                        let ephemeral = Secp256k1PrivateKey()
                        let query = try client.query(for: client.hashedKey, ephemeral: ephemeral)
                        // Both nodes have joined the query topic once the registration applied.
                        let queryAnswers = try await waitUntil(
                            "the query sent to both nodes to be answered",
                            within: .seconds(60),
                            every: .milliseconds(50),
                            observing: { () async throws -> [WakuMessage] in
                                async let queriedFirst = post(query, to: first)
                                async let queriedSecond = post(query, to: second)
                                return try await queriedFirst + queriedSecond
                            }
                        ) { !$0.isEmpty }
                        #expect(queryAnswers.count == 1)
                        // The same message again, later, is still a copy.
                        #expect(try await post(message, to: second).isEmpty)
                    }
                }
            }
        }
    }

    @Test func theInternalAPINeedsTheSecretAndNeverForwardsAgain() async throws {
        try await withNodes(2, etcdMembers: 1) { nodes, serverKey, _, _ in
            try await running(nodes[0]) { first in
                try await running(nodes[1]) { _ in
                    try await waitForMembers(nodes, count: 2)
                    // A registration whose partition node1 owns, forwarded to node0 by mistake.
                    var message: WakuMessage?
                    for _ in 0..<1000 where message == nil {
                        let status = StatusClient(identity: Secp256k1PrivateKey(), server: serverKey.publicKey)
                        let forwarder = try #require(nodes[0].forwarder)
                        if case .forward = forwarder.decide(partition: forwarder.partition(of: PartitionKey(scope: .status, subject: status.hashedKey)), forwardedFrom: nil) {
                            message = try registration(status)
                        }
                    }
                    try #require(message != nil, "node1 owns some of 16 partitions, so some key falls in one of them")
                    func forward(secret: String?) async throws -> (HTTPResponseStatus, ByteBuffer) {
                        var request = HTTPClientRequest(url: "http://127.0.0.1:\(first)/internal/v1/status/messages")
                        request.method = .POST
                        request.headers.add(name: "Content-Type", value: "application/json")
                        request.headers.add(name: ClusterForwarder.forwardedHeader, value: "node1")
                        if let secret { request.headers.add(name: "Authorization", value: "Bearer \(secret)") }
                        request.body = .bytes(ByteBuffer(data: try JSONEncoder().encode(message)))
                        let response = try await HTTPClient.shared.execute(request, timeout: TimeAmount(TestTime.bound(.seconds(60))))
                        return (response.status, try await response.body.collect(upTo: 1 << 20))
                    }
                    #expect(try await forward(secret: nil).0 == .unauthorized)
                    #expect(try await forward(secret: "wrong").0 == .unauthorized)
                    let (status, body) = try await forward(secret: "cluster-secret-for-tests")
                    #expect(status == .ok)
                    #expect(String(buffer: body) == "[]", "not ours, and a forwarded request is not forwarded again: no answer")
                    #expect(try nodes[0].store.view.recordCount() == 0)
                }
            }
        }
    }

    @Test func aClusterNodeThatCannotStartReleasesWhatItMade() async throws {
        try await withTemporaryDirectory { directory in
            let effective = try await HeraldConfiguration.load(
                from: ConfigurationSources(
                    arguments: [
                        "--store-path", directory + "/data",
                        "--status-identity-key-file", directory + "/missing.key",
                        "--status-gorush-url", "http://127.0.0.1:9/api/push",
                        "--cluster-etcd-endpoints", "http://127.0.0.1:9",
                        "--store-encryption-key", EtcdCluster.testStoreKey,
                        "--cluster-secret", "s3cret",
                    ],
                    defaultFilePath: "/nonexistent/herald.yaml"
                )
            )
            // The etcd and forwarding clients were made before the front door failed; a debug
            // build traps if they are dropped without a shutdown.
            #expect(throws: (any Error).self) {
                _ = try HeraldNode.build(configuration: effective.configuration, logger: Logger(label: "test"))
            }
            // Not a wait for a condition: the clients shut down in the background, which nothing
            // here can observe; the pause lets a trap from one dropped unshut surface in this test.
            try await Task.sleep(for: .milliseconds(100))
            let store = try LocalStore(path: directory + "/data")
            try await store.close()
        }
    }

    /// Waits (bounded) until `node`, serving on `port`, answers `/readyz` with 200 and has
    /// applied the log up to `head`.
    func waitUntilReady(_ node: HeraldNode, port: Int, applied head: LogPosition) async throws {
        try await waitUntil(
            "the node on port \(port) to be ready with the log applied up to \(head) (observed: /readyz, applied position)",
            within: .seconds(60),
            every: .milliseconds(50),
            observing: { () async throws -> (readyz: HTTPResponseStatus, applied: LogPosition) in
                (try await get("/readyz", port: port).status, try node.store.view.appliedPosition())
            }
        ) { $0.readyz == .ok && $0.applied >= head }
    }

    func registration(_ client: StatusClient) throws -> WakuMessage {
        try client.registration(
            installationID: UUID().uuidString.lowercased(),
            version: 1,
            accessToken: UUID().uuidString.lowercased(),
            deviceToken: String(repeating: "12", count: 32),
            apnTopic: "im.status.ethereum"
        )
    }

    /// The node that last appended to `partition`, as its head key in etcd says.
    func head(_ partition: Int, _ client: EtcdClient) async throws -> String? {
        let digits = String(partition)
        let key = "herald/head/p" + String(repeating: "0", count: 4 - digits.count) + digits
        return try await client.range(Array(key.utf8)).keyValues.first.map { String(decoding: $0.value, as: UTF8.self) }
    }
}
