import AsyncHTTPClient
import Foundation
import HeraldCore
import HeraldCrypto
import HeraldStatus
import HeraldTestTraits
import HeraldTesting
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Fault test 6: a network partition, not a crash. etcd and three `herald` processes each run in
/// a network namespace of their own; one node is cut off from etcd and its peers while the test
/// (its clients) still reaches it, then healed.
// Serialized: namespaces and processes are heavy; one such test at a time.
@Suite(.serialized, .loadHeavy) struct ClusterPartitionTests {
    static let subjects = 24

    @Test func aNodeCutOffWritesNothingAndEveryViewAgreesAfterHealing() async throws {
        try #require(TestNetwork.isAvailable, "needs root and iproute2 (scripts/install-deps.sh installs it)")
        try #require(EtcdCluster.isInstalled, "etcd-server is not installed (scripts/install-deps.sh installs it)")
        try #require(HeraldExecutable.exists, "build herald first: \(HeraldExecutable.path) is missing")
        try await withTemporaryDirectory { directory in
            let network = try TestNetwork.create(hosts: 4)
            let cluster = PartitionedCluster(network: network, directory: directory)
            do {
                try await cluster.start()
                try await self.run(cluster)
            } catch {
                await cluster.stop()
                throw error
            }
            await cluster.stop()
        }
    }

    private func run(_ cluster: PartitionedCluster) async throws {
        let isolated = 2
        let clients = (0..<Self.subjects).map { _ in PartitionedCluster.Client(identity: Secp256k1PrivateKey()) }

        // Version 1 of every subject, through the three nodes in turn.
        var latest: [Int: String] = [:]
        for (index, client) in clients.enumerated() {
            let token = UUID().uuidString.lowercased()
            let (accepted, unanswered) = try await cluster.registerUntilAnswered(client, version: 1, accessToken: token, through: [index % 3])
            try #require(accepted, "registration \(index) through node\(index % 3) was refused after \(unanswered) unanswered attempts")
            if unanswered > 0 { print("registration \(index) through node\(index % 3) was answered after \(unanswered) unanswered attempts") }
            latest[index] = token
        }

        // Cut node2 off. Nothing it is asked to write can be acknowledged: it reaches neither
        // etcd nor the owners it would forward to.
        try cluster.network.cut(cluster.host(of: isolated))
        let acknowledgedByIsolated = try await withThrowingTaskGroup(of: Bool.self) { group in
            for client in clients.prefix(8) {
                group.addTask {
                    try await cluster.register(client, version: 2, accessToken: UUID().uuidString.lowercased(), through: isolated) == true
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(acknowledgedByIsolated == 0)

        // The other two take over node2's partitions once its lease ends, and take version 2.
        try await cluster.waitForMembers(2, on: [0, 1])
        for (index, client) in clients.enumerated() {
            let token = UUID().uuidString.lowercased()
            let (accepted, unanswered) = try await cluster.registerUntilAnswered(client, version: 2, accessToken: token, through: [0, 1])
            #expect(accepted, "version 2 of subject \(index) was refused after \(unanswered) unanswered attempts")
            if accepted { latest[index] = token }
        }

        // Heal, and race version 3 of every subject through node2 (which may not have caught up
        // yet) and node0: exactly one may win each, never both.
        try cluster.network.heal(cluster.host(of: isolated))
        // status-go takes only UUIDs as access tokens, so the node is recorded beside each.
        let raced = try await withThrowingTaskGroup(of: (subject: Int, node: Int, token: String, answer: Bool?).self) { group in
            for (index, client) in clients.enumerated() {
                for node in [isolated, 0] {
                    let token = UUID().uuidString.lowercased()
                    group.addTask { (index, node, token, try await cluster.register(client, version: 3, accessToken: token, through: node)) }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for index in clients.indices {
            let winners = raced.filter { $0.subject == index && $0.answer == true }
            #expect(winners.count <= 1, "subject \(index): two writers of one version both succeeded")
            if let winner = winners.first { latest[index] = winner.token }
        }

        var fenced: [String] = []
        for node in 0..<3 {
            let (_, metrics) = try await cluster.get("/metrics", node: node)
            let line = String(decoding: metrics, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("herald_log_appended_commands_total{result=\"fenced\"}") }
            fenced.append("node\(node): \(line.map { String($0.split(separator: " ").last ?? "0") } ?? "0")")
        }
        let outcomes = Dictionary(grouping: raced, by: { "node\($0.node) \($0.answer.map { $0 ? "success" : "refused" } ?? "unanswered")" }).mapValues(\.count)
        print("version 3 race: \(outcomes.sorted { $0.key < $1.key }); fenced commands \(fenced)")

        // Every node rejoins, applies the log to its head, and holds the same view.
        try await cluster.waitForMembers(3, on: [0, 1, 2])
        // The digest reads every record: only nodes (the cluster secret) may ask for it.
        #expect(try await cluster.get("/cluster?digest=true", node: 0).0 == 401)
        let digests = try await cluster.convergedDigests()
        #expect(Set(digests.map(\.sha256)).count == 1, "the views differ: \(digests)")
        #expect(digests.allSatisfy { $0.records == Self.subjects })

        // No acknowledged write is lost: every node answers each subject's query with the last
        // acknowledged version's access token.
        for node in 0..<3 {
            for (index, client) in clients.enumerated() {
                let tokens = try await cluster.query(client, through: node)
                #expect(tokens == [latest[index]!], "node\(node), subject \(index)")
            }
        }
    }
}

/// etcd on host 0 and three nodes on hosts 1-3 of a `TestNetwork`.
final class PartitionedCluster: Sendable {
    struct Client: Sendable {
        var identity: Secp256k1PrivateKey
        var installationID = UUID().uuidString.lowercased()
    }

    static let port = 8080

    let network: TestNetwork
    let directory: String
    let serverKey: Secp256k1PrivateKey
    let http: HTTPClient
    private let processes = Mutex<[ChildProcess]>([])

    init(network: TestNetwork, directory: String) {
        self.network = network
        self.directory = directory
        self.serverKey = Secp256k1PrivateKey()
        var configuration = HTTPClient.Configuration()
        // The test's clients always reach every node (only the cluster network is cut): this
        // bounds a hang, nothing more.
        configuration.timeout.connect = TimeAmount(TestTime.bound(.seconds(10)))
        self.http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// A duration as the configuration writes one, in milliseconds.
    private static func configured(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return "\(seconds * 1000 + attoseconds / 1_000_000_000_000_000)ms"
    }

    /// Node `index` runs on host `index + 1`.
    func host(of node: Int) -> Int { node + 1 }

    func url(of node: Int) -> String { "http://\(self.network.clientAddress(self.host(of: node))):\(Self.port)" }

    func start() async throws {
        let etcdAddress = self.network.clusterAddress(0)
        let etcd = try self.network.launch(
            on: 0,
            EtcdCluster.binary,
            [
                "--name", "m1", "--data-dir", "\(self.directory)/etcd",
                "--listen-client-urls", "http://\(etcdAddress):2379", "--advertise-client-urls", "http://\(etcdAddress):2379",
                "--listen-peer-urls", "http://\(etcdAddress):2380", "--initial-advertise-peer-urls", "http://\(etcdAddress):2380",
                "--initial-cluster", "m1=http://\(etcdAddress):2380", "--initial-cluster-state", "new",
                "--logger=zap", "--experimental-watch-progress-notify-interval=2s",
            ]
        )
        self.processes.withLock { $0.append(etcd) }
        guard try await etcd.waitFor(timeout: TestTime.bound(.seconds(60)), { $0.contains("serving client traffic") ? true : nil }) == true else {
            throw FailoverError(description: "etcd did not start: \(etcd.output.suffix(2000))")
        }
        try StatusIdentity.write(self.serverKey, toFile: self.directory + "/status.key")
        for node in 0..<3 {
            let host = self.host(of: node)
            let yaml = """
                server:
                  host: 0.0.0.0
                  port: \(Self.port)
                store:
                  path: \(self.directory)/node\(node)
                  encryption-key: \(EtcdCluster.testStoreKey)
                api:
                  bearer-token: partition-test-token
                log:
                  level: warning
                cluster:
                  etcd-endpoints: http://\(etcdAddress):2379
                  node-id: node\(node)
                  advertise-url: http://\(self.network.clusterAddress(host)):\(Self.port)
                  secret: partition-test-secret
                  partitions: 16
                  lease-ttl: 2
                  request-timeout: \(Self.configured(TestTime.bound(.seconds(10))))
                status:
                  identity-key-file: \(self.directory)/status.key
                  gorush-url: http://127.0.0.1:9/api/push

                """
            try yaml.write(toFile: "\(self.directory)/node\(node).yaml", atomically: true, encoding: .utf8)
            let process = try self.network.launch(
                on: host,
                HeraldExecutable.path,
                ["serve", "--config", "\(self.directory)/node\(node).yaml"],
                directory: self.directory,
                environment: ["PATH": "/usr/bin:/bin"]
            )
            self.processes.withLock { $0.append(process) }
        }
        try await self.waitForMembers(3, on: [0, 1, 2])
    }

    func stop() async {
        let processes = self.processes.withLock { $0 }
        for process in processes.reversed() {
            process.signal(SIGTERM)
            _ = try? await process.waitForExit(timeout: TestTime.bound(.seconds(30)))
        }
        try? await self.http.shutdown()
        self.network.remove()
    }

    /// Waits (bounded) until each of `nodes` is ready and lists `count` members; on a timeout the
    /// error carries the processes' output.
    func waitForMembers(_ count: Int, on nodes: [Int]) async throws {
        do {
            // Generous: three nodes and etcd share two cores, and a node rejoining after the heal
            // waits out its registration back-off first.
            try await waitUntil(
                "\(nodes.map { "node\($0)" }) to be ready and each list \(count) members",
                within: .seconds(120),
                every: .milliseconds(100),
                observing: { () async -> [ClusterNodeState] in
                    var states: [ClusterNodeState] = []
                    for node in nodes {
                        let status = try? await self.clusterStatus(node)
                        let members = (status?["members"] as? [Any])?.count
                        let ready = try? await self.get("/readyz", node: node)
                        states.append(ClusterNodeState(node: "node\(node)", members: members, readyz: ready?.0))
                    }
                    return states
                }
            ) { states in states.allSatisfy { $0.members == count && $0.readyz == 200 } }
        } catch let timedOut as WaitTimedOut {
            let output = self.processes.withLock { $0.map(\.output) }.joined(separator: "\n---\n")
            throw FailoverError(description: "\(timedOut); output:\n\(output.suffix(6000))")
        }
    }

    struct RegistryDigestJSON: Sendable, Hashable {
        var applied: UInt64
        var records: Int
        var sha256: String
    }

    /// Each node's log head and digest, as one poll of the three saw them.
    struct Convergence: CustomStringConvertible {
        var heads: [UInt64] = []
        var digests: [RegistryDigestJSON] = []

        /// Every node read the same head and applied the log up to it.
        var isConverged: Bool {
            Set(self.heads).count == 1 && self.digests.allSatisfy { $0.applied == self.heads.first }
        }

        var description: String { "log heads \(self.heads), views \(self.digests)" }
    }

    /// Each node's digest once every node has applied the log up to the same head; throws
    /// `WaitTimedOut` (with the heads and views last seen) if they never get there.
    func convergedDigests() async throws -> [RegistryDigestJSON] {
        let converged = try await waitUntil(
            "every node to apply the log up to one head",
            within: .seconds(60),
            every: .milliseconds(100),
            observing: { () async throws -> Convergence in
                var convergence = Convergence()
                for node in 0..<3 {
                    let status = try await self.clusterStatus(node, digest: true)
                    convergence.heads.append((status["logHead"] as? NSNumber)?.uint64Value ?? 0)
                    let view = status["view"] as? [String: Any] ?? [:]
                    convergence.digests.append(
                        RegistryDigestJSON(
                            applied: (view["appliedPosition"] as? NSNumber)?.uint64Value ?? 0,
                            records: view["records"] as? Int ?? -1,
                            sha256: view["sha256"] as? String ?? ""
                        )
                    )
                }
                return convergence
            }
        ) { $0.isConverged }
        return converged.digests
    }

    func clusterStatus(_ node: Int, digest: Bool = false) async throws -> [String: Any] {
        let (status, body) = try await self.get(digest ? "/cluster?digest=true" : "/cluster", node: node, token: digest ? "partition-test-secret" : nil)
        guard status == 200 else { throw FailoverError(description: "GET /cluster on node\(node): \(status)") }
        return try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] ?? [:]
    }

    func get(_ path: String, node: Int, token: String? = nil) async throws -> (Int, [UInt8]) {
        var request = HTTPClientRequest(url: self.url(of: node) + path)
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        let response = try await self.http.execute(request, timeout: TimeAmount(TestTime.bound(.seconds(30))))
        return (Int(response.status.code), Array(buffer: try await response.body.collect(upTo: 1 << 20)))
    }

    func post(_ message: WakuMessage, node: Int) async throws -> [WakuMessage] {
        var request = HTTPClientRequest(url: self.url(of: node) + "/waku/v1/messages")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Authorization", value: "Bearer partition-test-token")
        request.body = .bytes(ByteBuffer(data: try JSONEncoder().encode(message)))
        // Longer than a node takes to give up on etcd or on the owner it forwards to (twice the
        // configured request timeout), so a cut-off node's own "no answer" reaches the test.
        let response = try await self.http.execute(request, timeout: TimeAmount(TestTime.bound(.seconds(60))))
        guard response.status == .ok else { return [] }
        return try JSONDecoder().decode([WakuMessage].self, from: Data(buffer: try await response.body.collect(upTo: 16 << 20)))
    }

    /// A registration through `node`: `true` success, `false` refused (`VERSION_MISMATCH`),
    /// `nil` unanswered or unreachable.
    func register(_ client: Client, version: UInt64, accessToken: String, through node: Int) async throws -> Bool? {
        let status = StatusClient(identity: client.identity, server: self.serverKey.publicKey)
        let message = try status.registration(
            installationID: client.installationID,
            version: version,
            accessToken: accessToken,
            deviceToken: String(repeating: "ef", count: 32),
            apnTopic: "im.herald.partition"
        )
        guard let answer = try? await self.post(message, node: node).first else { return nil }
        let response = try StatusAnswer(answer, openedWith: client.identity).registrationResponse()
        return response.success
    }

    /// Sends the registration through `nodes` in turn until one answers (bounded): unanswered
    /// means "send again", as status-go does (a forward can time out on a loaded machine). After
    /// an unanswered attempt that was stored all the same, the copy hears VERSION_MISMATCH; only
    /// then does the stored token decide. Returns whether it was accepted, and after how many
    /// unanswered attempts.
    func registerUntilAnswered(_ client: Client, version: UInt64, accessToken: String, through nodes: [Int]) async throws -> (accepted: Bool, unanswered: Int) {
        var attempts = 0
        let answered = try await waitUntil(
            "a registration of version \(version) through \(nodes.map { "node\($0)" }) to be answered",
            within: .seconds(60),
            // The pause a client makes before sending again.
            every: .milliseconds(100),
            observing: { () async throws -> (node: Int, answer: Bool?) in
                let node = nodes[attempts % nodes.count]
                attempts += 1
                return (node, try await self.register(client, version: version, accessToken: accessToken, through: node))
            }
        ) { $0.answer != nil }
        let unanswered = attempts - 1
        if answered.answer == false, unanswered > 0, try await self.query(client, through: answered.node) == [accessToken] {
            return (true, unanswered)
        }
        return (answered.answer == true, unanswered)
    }

    /// The access tokens a Status query through `node` returns for the client's key; an
    /// unanswered query is sent again, a new message each time (bounded).
    func query(_ client: Client, through node: Int) async throws -> [String] {
        let status = StatusClient(identity: client.identity, server: self.serverKey.publicKey)
        let ephemeral = Secp256k1PrivateKey()
        let answer = try await waitUntil(
            "node\(node) to answer a Status query",
            within: .seconds(60),
            every: .milliseconds(100),
            observing: { () async throws -> WakuMessage? in
                try? await self.post(try status.query(for: status.hashedKey, ephemeral: ephemeral), node: node).first
            }
        ) { $0 != nil }
        guard let answer else { throw FailoverError(description: "node\(node) answered the query with nothing") }
        return try StatusAnswer(answer, openedWith: ephemeral).queryResponse().info.map(\.accessToken)
    }
}
