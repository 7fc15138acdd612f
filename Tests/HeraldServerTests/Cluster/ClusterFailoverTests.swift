import AsyncHTTPClient
import Crypto
import Foundation
import HeraldCluster
import HeraldCore
import HeraldCrypto
import HeraldStatus
import HeraldStore
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

/// Fault test 2: `kill -9` of a node (a real `herald` process) under steady registration and
/// push load, to the strict mock APNs. Clients do what real ones do when a node vanishes: send
/// again, to another node.
// Serialized: it starts etcd and three nodes on ports picked free just before.
@Suite(.serialized, .loadHeavy) struct ClusterFailoverTests {
    static let leaseTTL = 2
    static let topic = "im.herald.failover"

    @Test func killingANodeUnderLoadLosesNoAcknowledgedRegistrationOrPush() async throws {
        try #require(EtcdCluster.isInstalled, "etcd-server is not installed (scripts/install-deps.sh installs it)")
        try #require(HeraldExecutable.exists, "build herald first: \(HeraldExecutable.path) is missing")
        try await withTemporaryDirectory { directory in
            try await FailoverCluster.with(nodes: 3, leaseTTL: Self.leaseTTL, topic: Self.topic, in: directory) { cluster in
                try await self.run(cluster)
            }
        }
    }

    private func run(_ cluster: FailoverCluster) async throws {
        try await cluster.waitUntilReady()
        let victim = 2
        let victimID = cluster.nodeIDs[victim]
        let map = PartitionMap(partitions: FailoverCluster.partitions, members: cluster.nodeIDs)
        let load = FailoverLoad(cluster: cluster, topic: Self.topic)
        // Acknowledged registrations for the victim's partitions sent after the kill: the other
        // nodes have taken those partitions over.
        func resumedAfter(_ kill: ContinuousClock.Instant) -> [FailoverLoad.Registration] {
            load.acknowledgedRegistrations.filter { map.owner(of: $0.partition) == victimID && $0.sent > kill }
        }
        // The load runs until what the test checks has happened, however long that takes here.
        let killTime = try await withThrowingTaskGroup(of: Void.self, returning: ContinuousClock.Instant.self) { group in
            for worker in 0..<2 {
                group.addTask { try await load.registrations(worker: worker) }
                group.addTask { try await load.pushes(worker: worker) }
            }
            // On a failed wait too, so that the workers end.
            defer { load.stop() }
            // The kill comes once the load is under way, so that requests are in flight when the
            // node dies.
            try await waitUntil(
                "the load to be under way before the kill (observed: acknowledged registrations, pushes)",
                within: .seconds(60),
                observing: { (load.acknowledgedRegistrations.count, load.acknowledgedPushes.count) }
            ) { $0.0 >= 10 && $0.1 >= 10 }
            cluster.kill(victim)
            let killed = ContinuousClock.now
            // Several writes after the failover, not just the first, and enough load overall to
            // say anything.
            try await waitUntil(
                "3 registrations for \(victimID)'s partitions sent after the kill to be acknowledged, and more than 20 registrations and pushes in all (observed: those, registrations, pushes)",
                within: .seconds(180),
                every: .milliseconds(100),
                observing: { (resumedAfter(killed).count, load.acknowledgedRegistrations.count, load.acknowledgedPushes.count) }
            ) { $0.0 >= 3 && $0.1 > 20 && $0.2 > 20 }
            load.stop()
            // A worker's error surfaces here.
            try await group.waitForAll()
            return killed
        }

        let registrations = load.acknowledgedRegistrations
        let pushes = load.acknowledgedPushes
        #expect(registrations.count > 20, "too little load to say anything: \(registrations.count) registrations")
        #expect(pushes.count > 20, "too little load to say anything: \(pushes.count) pushes")

        // Failover: the first registration for a partition the victim owned that was sent after
        // the kill and acknowledged (one sent before may be answered by the victim just before
        // it died). How long it took is reported, not asserted: it depends on the machine.
        let resumed = resumedAfter(killTime).map(\.acknowledged).min()
        let failover = try #require(resumed, "no registration for the victim's partitions was acknowledged after the kill") - killTime
        print("failover: \(failover) (lease TTL \(Self.leaseTTL) s); registrations \(registrations.count), pushes \(pushes.count), pushes sent again \(load.pushesSentAgain)")

        // No acknowledged registration is lost: a query through a surviving node finds each,
        // once that node has applied what the others wrote.
        var missing = registrations
        try await waitUntil(
            "node0 to find every one of the \(registrations.count) acknowledged registrations (observed: how many it does not)",
            within: .seconds(60),
            every: .milliseconds(100),
            observing: { () async throws -> Int in
                var stillMissing: [FailoverLoad.Registration] = []
                for registration in missing where try await !cluster.finds(registration, through: 0) {
                    stillMissing.append(registration)
                }
                missing = stillMissing
                return missing.count
            }
        ) { $0 == 0 }

        // No acknowledged push is lost (gorush answers once it has delivered); one delivered
        // twice was in flight when the node died and sent again.
        var deliveries: [String: Int] = [:]
        for push in cluster.mock.accepted { deliveries[push.token, default: 0] += 1 }
        let lostPushes = pushes.filter { deliveries[$0] == nil }
        #expect(lostPushes.isEmpty, "\(lostPushes.count) acknowledged pushes never reached APNs")
        let duplicates = deliveries.values.filter { $0 > 1 }.count
        print("pushes delivered twice: \(duplicates)")
        #expect(duplicates <= load.pushesSentAgain)
        // Three nodes, one restarted, one key: one provider token, shared through etcd, as
        // Apple sees it (each node minting its own would be three changes of the key's token).
        #expect(cluster.mock.providerTokens.count == 1, "APNs saw \(cluster.mock.providerTokens.count) provider tokens for one key")
    }

    @Test func anIdempotencyKeyIsAnsweredOnceWhicheverNodeReceivesIt() async throws {
        try #require(EtcdCluster.isInstalled, "etcd-server is not installed (scripts/install-deps.sh installs it)")
        try #require(HeraldExecutable.exists, "build herald first: \(HeraldExecutable.path) is missing")
        try await withTemporaryDirectory { directory in
            try await FailoverCluster.with(nodes: 2, leaseTTL: Self.leaseTTL, topic: Self.topic, in: directory) { cluster in
                try await cluster.waitUntilReady()
                // Eight keys: with two nodes, some are owned by each, so both the owner's own
                // marker and a forwarded request are exercised.
                for index in 0..<8 {
                    let token = String(format: "%064x", 0xabc0 + index)
                    let body = Array(#"{"notifications":[{"platform":1,"topic":"\#(Self.topic)","message":"once","tokens":["\#(token)"]}]}"#.utf8)
                    let key = [("Idempotency-Key", "cluster-key-\(index)")]
                    let first = try await cluster.post("/api/push", body, port: cluster.ports[0], headers: key)
                    let second = try await cluster.post("/api/push", body, port: cluster.ports[1], headers: key)
                    #expect(first.0 == 200 && second.0 == 200)
                    #expect(first.1 == second.1)
                    #expect(first.2["Idempotent-Replayed"].isEmpty)
                    #expect(second.2["Idempotent-Replayed"] == ["true"])
                }
                #expect(cluster.mock.accepted.count == 8)

                // A request forwarded for a key this node does not own is not forwarded again:
                // the client is told to retry.
                let map = PartitionMap(partitions: FailoverCluster.partitions, members: cluster.nodeIDs)
                let key = try #require((0..<64).map { "owned-elsewhere-\($0)" }.first { key in
                    map.owner(of: RegistrationKey.partition(ofBytes: Array(SHA256.hash(data: Array(key.utf8))), of: FailoverCluster.partitions)) == "node1"
                })
                let body = Array(#"{"notifications":[{"platform":1,"topic":"\#(Self.topic)","message":"x","tokens":["\#(String(repeating: "a", count: 64))"]}]}"#.utf8)
                let refused = try await cluster.post(
                    "/internal/v1/gorush/push",
                    body,
                    port: cluster.ports[0],
                    headers: [("Idempotency-Key", key), ("Authorization", "Bearer failover-test-secret"), ("X-Herald-Forwarded-From", "node1")]
                )
                #expect(refused.0 == 503)
                #expect(refused.2["Retry-After"] == ["1"])
                #expect(String(decoding: refused.1, as: UTF8.self).contains(#""code":503"#))
                #expect(cluster.mock.accepted.count == 8)
            }
        }
    }
}

extension ClusterFailoverTests {
    @Test func aDeadTokenIsDisabledByItsPartitionsOwnerWhicheverNodeDelivered() async throws {
        try #require(EtcdCluster.isInstalled, "etcd-server is not installed (scripts/install-deps.sh installs it)")
        try #require(HeraldExecutable.exists, "build herald first: \(HeraldExecutable.path) is missing")
        try await withTemporaryDirectory { directory in
            try await FailoverCluster.with(nodes: 2, leaseTTL: Self.leaseTTL, topic: Self.topic, in: directory) { cluster in
                try await cluster.waitUntilReady()
                try await self.deadTokens(cluster)
            }
        }
    }

    private func deadTokens(_ cluster: FailoverCluster) async throws {
        let map = PartitionMap(partitions: FailoverCluster.partitions, members: cluster.nodeIDs)
        func owner(_ key: Secp256k1PrivateKey) -> String? {
            map.owner(of: RegistrationKey.partition(scope: .status, subject: StatusIdentity.hashedKey(key.publicKey), of: FailoverCluster.partitions))
        }
        // Registrations node1 owns, pushed through node0 by a sender whose key node0 owns: node0
        // delivers, hears the token is dead, and must have node1 write the disable.
        var identities: [Secp256k1PrivateKey] = []
        while identities.count < 4 {
            let key = Secp256k1PrivateKey()
            if owner(key) == "node1" { identities.append(key) }
        }
        let ephemeral: Secp256k1PrivateKey = {
            var key = Secp256k1PrivateKey()
            while owner(key) != "node0" { key = Secp256k1PrivateKey() }
            return key
        }()

        /// Registers `token` through node0; returns what a push to the registration names.
        func register(_ identity: Secp256k1PrivateKey, token: String) async throws -> (client: StatusClient, installation: String, accessToken: String) {
            let client = StatusClient(identity: identity, server: cluster.serverKey)
            let installation = UUID().uuidString.lowercased()
            let accessToken = UUID().uuidString.lowercased()
            let registration = try client.registration(installationID: installation, version: 1, accessToken: accessToken, deviceToken: token, apnTopic: Self.topic)
            let (status, body) = try await cluster.post("/waku/v1/messages", Array(try JSONEncoder().encode(registration)), port: cluster.ports[0])
            let answer = try #require(try JSONDecoder().decode([WakuMessage].self, from: Data(body)).first, "registration of \(token) unanswered (\(status))")
            #expect(try StatusAnswer(answer, openedWith: identity).registrationResponse().success)
            return (client, installation, accessToken)
        }
        /// A push request from the sender node0 owns to `registration`; a new message each call.
        func pushRequest(to registration: (client: StatusClient, installation: String, accessToken: String)) throws -> WakuMessage {
            let request = Protobuf_PushNotificationRequest.notifying(registration.client.hashedKey, installationID: registration.installation, accessToken: registration.accessToken)
            return try StatusClient(server: cluster.serverKey).pushRequest(request, ephemeral: ephemeral)
        }

        var requests: [WakuMessage] = []
        for (index, identity) in identities.enumerated() {
            let token = String(format: "%064x", 0xdead00 + index)
            let registration = try await register(identity, token: token)
            cluster.mock.script(token: token, .unregistered(since: Date()))
            requests.append(try pushRequest(to: registration))
        }
        // A live registration node0 owns (so node0 has applied it once it answers): its pushes
        // do go out, and show when pushes sent before them would have.
        var liveIdentity = Secp256k1PrivateKey()
        while owner(liveIdentity) != "node0" { liveIdentity = Secp256k1PrivateKey() }
        let liveToken = String(format: "%064x", 0x11fe00)
        let live = try await register(liveIdentity, token: liveToken)

        let before = try await (cluster.committedCommands(node: 0), cluster.committedCommands(node: 1))
        for request in requests {
            _ = try await cluster.post("/waku/v1/messages", Array(try JSONEncoder().encode(request)), port: cluster.ports[0])
        }
        // Pushes leave after the answer: wait (bounded) for the four refusals and the disables.
        let after = try await waitUntil(
            "APNs to refuse the four dead tokens and node1 to write their disables (observed: APNs requests, commands node0 and node1 appended)",
            within: .seconds(60),
            every: .milliseconds(100),
            observing: { () async throws -> (requests: Int, node0: Int, node1: Int) in
                let commands = try await (cluster.committedCommands(node: 0), cluster.committedCommands(node: 1))
                return (cluster.mock.requestCount, commands.0, commands.1)
            }
        ) { $0.requests >= 4 && $0.node1 - before.1 >= 4 }
        #expect(after.node0 == before.0, "node0, which owns none of them, wrote no disable")
        // At least: a disable whose forward timed out on a loaded machine may be written again.
        #expect(after.node1 - before.1 >= 4, "node1 wrote the four disables")

        // Every node applies them: no further push goes to the dead tokens, through either node.
        let head = try await cluster.positions(node: 1).head
        try await waitUntil(
            "both nodes to apply the log up to \(head), the disables included (observed: their applied positions)",
            within: .seconds(60),
            every: .milliseconds(100),
            observing: { () async throws -> [UInt64] in
                var applied: [UInt64] = []
                for node in cluster.ports.indices { applied.append(try await cluster.positions(node: node).applied) }
                return applied
            }
        ) { $0.allSatisfy { $0 >= head } }
        let requestsBefore = cluster.mock.requestCount
        for port in cluster.ports {
            for request in requests {
                _ = try await cluster.post("/waku/v1/messages", Array(try JSONEncoder().encode(request)), port: port)
            }
            _ = try await cluster.post("/waku/v1/messages", Array(try JSONEncoder().encode(try pushRequest(to: live))), port: port)
        }
        // The live pushes were handed over after any to the dead tokens through the same node:
        // once they reach APNs, those would have too.
        let liveDelivered = try await waitUntil(
            "the live registration's push through each node to reach APNs (observed: how many did)",
            within: .seconds(60),
            observing: { cluster.mock.accepted.filter { $0.token == liveToken }.count }
        ) { $0 >= cluster.ports.count }
        #expect(cluster.mock.requestCount == requestsBefore + liveDelivered, "only the live pushes reached APNs, none to a dead token")
    }
}

/// Three `herald serve` processes in cluster mode around one etcd member and the mock APNs.
final class FailoverCluster: Sendable {
    static let partitions = 16

    let etcd: EtcdCluster
    let mock: MockAPNS
    let ports: [Int]
    let serverKey: Secp256k1PublicKey
    let http: HTTPClient
    private let processes: Mutex<[ChildProcess?]>

    var nodeIDs: [String] { self.ports.indices.map { "node\($0)" } }

    private init(etcd: EtcdCluster, mock: MockAPNS, ports: [Int], serverKey: Secp256k1PublicKey, processes: [ChildProcess]) {
        self.etcd = etcd
        self.mock = mock
        self.ports = ports
        self.serverKey = serverKey
        self.processes = Mutex(processes)
        var configuration = HTTPClient.Configuration()
        // A killed node refuses at once; this bounds a hang, nothing more.
        configuration.timeout.connect = TimeAmount(TestTime.bound(.seconds(10)))
        self.http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// A duration as the configuration writes one, in milliseconds.
    private static func configured(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return "\(seconds * 1000 + attoseconds / 1_000_000_000_000_000)ms"
    }

    /// Runs `body` with the cluster started in `directory`, and stops it however it ends.
    /// `extraYAML` is appended to every node's configuration.
    static func with(nodes count: Int, leaseTTL: Int, topic: String, in directory: String, extraYAML: String = "", _ body: (FailoverCluster) async throws -> Void) async throws {
        let cluster = try await Self.start(nodes: count, leaseTTL: leaseTTL, topic: topic, in: directory, extraYAML: extraYAML)
        do {
            try await body(cluster)
        } catch {
            await cluster.stop()
            throw error
        }
        await cluster.stop()
    }

    static func start(nodes count: Int, leaseTTL: Int, topic: String, in directory: String, extraYAML: String = "") async throws -> FailoverCluster {
        let etcd = try await EtcdCluster.start(members: 1, in: directory)
        let signing = P256.Signing.PrivateKey()
        let mock: MockAPNS
        do {
            mock = try await MockAPNS.start(configuration: .init(keys: [.init(keyID: "FAILOVER01", teamID: "FAILTEAM01", publicKey: signing.publicKey)]))
        } catch {
            await etcd.stop()
            throw error
        }
        var processes: [ChildProcess] = []
        do {
            try signing.pemRepresentation.write(toFile: directory + "/apns.p8", atomically: true, encoding: .utf8)
            try mock.certificatePEM.write(toFile: directory + "/apns-ca.pem", atomically: true, encoding: .utf8)
            let serverKey = Secp256k1PrivateKey()
            try StatusIdentity.write(serverKey, toFile: directory + "/status.key")
            let ports = try (0..<count).map { _ in try EtcdCluster.freePort() }
            for (index, port) in ports.enumerated() {
                let yaml = """
                    server:
                      host: 127.0.0.1
                      port: \(port)
                    store:
                      path: \(directory)/node\(index)
                      encryption-key: \(EtcdCluster.testStoreKey)
                    log:
                      level: warning
                    cluster:
                      etcd-endpoints: \(etcd.endpoints.joined(separator: ","))
                      node-id: node\(index)
                      advertise-url: http://127.0.0.1:\(port)
                      secret: failover-test-secret
                      partitions: \(Self.partitions)
                      lease-ttl: \(leaseTTL)
                      request-timeout: \(Self.configured(TestTime.bound(.seconds(10))))
                    status:
                      identity-key-file: \(directory)/status.key
                    delivery:
                      default-app: demo
                    apps:
                      demo:
                        apns:
                          key-file: \(directory)/apns.p8
                          key-id: FAILOVER01
                          team-id: FAILTEAM01
                          topic: \(topic)
                          host: 127.0.0.1
                          port: \(mock.port)
                          ca-file: \(directory)/apns-ca.pem

                    """ + extraYAML
                try yaml.write(toFile: "\(directory)/node\(index).yaml", atomically: true, encoding: .utf8)
                processes.append(
                    try ChildProcess(
                        executable: HeraldExecutable.path,
                        arguments: ["serve", "--config", "\(directory)/node\(index).yaml"],
                        directory: directory,
                        environment: ["PATH": "/usr/bin:/bin"]
                    )
                )
            }
            return FailoverCluster(etcd: etcd, mock: mock, ports: ports, serverKey: serverKey.publicKey, processes: processes)
        } catch {
            for process in processes { process.signal(SIGKILL) }
            try? await mock.shutdown()
            await etcd.stop()
            throw error
        }
    }

    /// Waits (bounded) until every node is ready and sees every member; on a timeout the error
    /// carries the nodes' output.
    func waitUntilReady() async throws {
        do {
            // Generous: etcd and every node start at once on two cores.
            try await waitUntil(
                "every node to be ready and list \(self.ports.count) members",
                within: .seconds(120),
                every: .milliseconds(100),
                observing: { () async -> [ClusterNodeState] in
                    var states: [ClusterNodeState] = []
                    for port in self.ports {
                        var members: Int?
                        if let (status, body) = try? await self.get("/cluster", port: port), status == 200,
                            let json = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
                        {
                            members = (json["members"] as? [Any])?.count
                        }
                        let ready = try? await self.get("/readyz", port: port)
                        states.append(ClusterNodeState(node: "port \(port)", members: members, readyz: ready?.0))
                    }
                    return states
                }
            ) { states in states.allSatisfy { $0.members == self.ports.count && $0.readyz == 200 } }
        } catch let timedOut as WaitTimedOut {
            let output = self.processes.withLock { $0.compactMap { $0?.output } }.joined(separator: "\n---\n")
            throw FailoverError(description: "\(timedOut); output:\n\(output)")
        }
    }

    func kill(_ node: Int) {
        let process = self.processes.withLock { processes in
            defer { processes[node] = nil }
            return processes[node]
        }
        process?.signal(SIGKILL)
    }

    func get(_ path: String, port: Int) async throws -> (Int, [UInt8]) {
        let response = try await self.http.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)"), timeout: TimeAmount(TestTime.bound(.seconds(30))))
        return (Int(response.status.code), Array(buffer: try await response.body.collect(upTo: 1 << 20)))
    }

    func post(_ path: String, _ body: [UInt8], port: Int) async throws -> (Int, [UInt8]) {
        let (status, body, _) = try await self.post(path, body, port: port, headers: [])
        return (status, body)
    }

    func post(_ path: String, _ body: [UInt8], port: Int, headers: [(String, String)]) async throws -> (Int, [UInt8], HTTPHeaders) {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        // Longer than a node takes to give up on etcd or on the owner it forwards to (twice the
        // configured request timeout).
        let response = try await self.http.execute(request, timeout: TimeAmount(TestTime.bound(.seconds(60))))
        return (Int(response.status.code), Array(buffer: try await response.body.collect(upTo: 16 << 20)), response.headers)
    }

    /// Commands this node appended to the log, from its `/metrics`.
    func committedCommands(node: Int) async throws -> Int {
        let (_, body) = try await self.get("/metrics", port: self.ports[node])
        let line = String(decoding: body, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix(#"herald_log_appended_commands_total{result="committed"}"#) }
        return line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
    }

    /// The log head and the node's applied position, from its `/readyz` (whose body says both
    /// whether ready or not).
    func positions(node: Int) async throws -> (head: UInt64, applied: UInt64) {
        let (_, body) = try await self.get("/readyz", port: self.ports[node])
        let json = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] ?? [:]
        return ((json["logHead"] as? NSNumber)?.uint64Value ?? 0, (json["appliedPosition"] as? NSNumber)?.uint64Value ?? 0)
    }

    /// Whether a Status query through `node` returns the registration's access token.
    func finds(_ registration: FailoverLoad.Registration, through node: Int) async throws -> Bool {
        let client = StatusClient(identity: registration.identity, server: self.serverKey)
        let ephemeral = Secp256k1PrivateKey()
        let query = try client.query(for: client.hashedKey, ephemeral: ephemeral)
        let (status, body) = try await self.post("/waku/v1/messages", Array(try JSONEncoder().encode(query)), port: self.ports[node])
        guard status == 200, let answer = try JSONDecoder().decode([WakuMessage].self, from: Data(body)).first else { return false }
        return try StatusAnswer(answer, openedWith: ephemeral).queryResponse().info.map(\.accessToken).contains(registration.accessToken)
    }

    func stop() async {
        let processes = self.processes.withLock { $0 }
        for process in processes.compactMap({ $0 }) {
            process.signal(SIGTERM)
            _ = try? await process.waitForExit(timeout: TestTime.bound(.seconds(30)))
        }
        try? await self.http.shutdown()
        try? await self.mock.shutdown()
        await self.etcd.stop()
    }
}

struct FailoverError: Error, CustomStringConvertible {
    var description: String
}

/// Registrations and gorush pushes sent round-robin to the nodes until `stop()`; a request that
/// fails (refused, reset, a 5xx, a Status message left unanswered) is sent again to the next node.
final class FailoverLoad: Sendable {
    struct Registration: Sendable {
        var identity: Secp256k1PrivateKey
        var accessToken: String
        var partition: Int
        /// When the attempt that was acknowledged was sent, and when its answer came.
        var sent: ContinuousClock.Instant
        var acknowledged: ContinuousClock.Instant
    }

    private struct State {
        var registrations: [Registration] = []
        var pushes: [String] = []
        var pushesSentAgain = 0
        var nextToken: UInt64 = 0
        var stopped = false
    }

    let cluster: FailoverCluster
    let topic: String
    private let state = Mutex(State())

    init(cluster: FailoverCluster, topic: String) {
        self.cluster = cluster
        self.topic = topic
    }

    var acknowledgedRegistrations: [Registration] { self.state.withLock { $0.registrations } }
    var acknowledgedPushes: [String] { self.state.withLock { $0.pushes } }
    var pushesSentAgain: Int { self.state.withLock { $0.pushesSentAgain } }

    /// Ends the workers after the request each has in flight.
    func stop() {
        self.state.withLock { $0.stopped = true }
    }

    private var isStopped: Bool { self.state.withLock { $0.stopped } || Task.isCancelled }

    func registrations(worker: Int) async throws {
        var node = worker
        while !self.isStopped {
            let identity = Secp256k1PrivateKey()
            let client = StatusClient(identity: identity, server: self.cluster.serverKey)
            let accessToken = UUID().uuidString.lowercased()
            let message = try client.registration(
                installationID: UUID().uuidString.lowercased(),
                version: 1,
                accessToken: accessToken,
                deviceToken: String(repeating: "cd", count: 32),
                apnTopic: self.topic
            )
            let body = Array(try JSONEncoder().encode(message))
            // Sent again until answered or the load stops; a VERSION_MISMATCH after a resend
            // means an unanswered attempt was written after all, which is not an acknowledgement.
            while !self.isStopped {
                node = (node + 1) % self.cluster.ports.count
                let sent = ContinuousClock.now
                guard let (status, answer) = try? await self.cluster.post("/waku/v1/messages", body, port: self.cluster.ports[node]), status == 200,
                    let replies = try? JSONDecoder().decode([WakuMessage].self, from: Data(answer)), let reply = replies.first
                else {
                    // Not a wait for a condition: the pause a client makes before sending again.
                    try await Task.sleep(for: .milliseconds(50))
                    continue
                }
                if try StatusAnswer(reply, openedWith: identity).registrationResponse().success {
                    let partition = RegistrationKey.partition(scope: .status, subject: client.hashedKey, of: FailoverCluster.partitions)
                    let registration = Registration(identity: identity, accessToken: accessToken, partition: partition, sent: sent, acknowledged: .now)
                    self.state.withLock { $0.registrations.append(registration) }
                }
                break
            }
        }
    }

    func pushes(worker: Int) async throws {
        var node = worker
        while !self.isStopped {
            let token = self.state.withLock { state -> String in
                state.nextToken += 1
                let digits = String(state.nextToken, radix: 16)
                return String(repeating: "0", count: 64 - digits.count) + digits
            }
            let body = Array(#"{"notifications":[{"platform":1,"topic":"\#(self.topic)","message":"failover","tokens":["\#(token)"]}]}"#.utf8)
            var attempts = 0
            // Sent again until answered or the load stops.
            while !self.isStopped {
                node = (node + 1) % self.cluster.ports.count
                attempts += 1
                if attempts == 2 { self.state.withLock { $0.pushesSentAgain += 1 } }
                guard let (status, answer) = try? await self.cluster.post("/api/push", body, port: self.cluster.ports[node]), status == 200 else {
                    // Not a wait for a condition: the pause a client makes before sending again.
                    try await Task.sleep(for: .milliseconds(50))
                    continue
                }
                let json = try JSONSerialization.jsonObject(with: Data(answer)) as? [String: Any]
                if json?["success"] as? String == "ok", (json?["logs"] as? [Any])?.isEmpty ?? true {
                    self.state.withLock { $0.pushes.append(token) }
                }
                break
            }
        }
    }
}
