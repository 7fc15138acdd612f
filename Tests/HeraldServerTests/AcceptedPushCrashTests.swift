import AsyncHTTPClient
import Crypto
import Foundation
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

/// `kill -9` of a node (a real `herald` process, alone) holding pushes it acknowledged before
/// delivering them — gorush in async mode and Status push requests — while APNs answers every
/// push 503, so each waits in its retries. After a restart every acknowledged push reaches APNs
/// or the feedback webhook as failed: none is lost.
@Suite(.serialized, .loadHeavy) struct AcceptedPushCrashTests {
    static let topic = "im.herald.crash"
    static let processLimit = TestTime.bound(.seconds(60))

    @Test func killedNodeResumesEveryAcknowledgedGorushAndStatusPushAfterARestart() async throws {
        try #require(HeraldExecutable.exists, "build herald first: \(HeraldExecutable.path) is missing")
        try await withTemporaryDirectory { directory in
            let signing = P256.Signing.PrivateKey()
            let mock = try await MockAPNS.start(configuration: .init(keys: [.init(keyID: "CRASHKEY01", teamID: "CRASHTEAM1", publicKey: signing.publicKey)]))
            let webhook: WebhookReceiver
            do {
                webhook = try await WebhookReceiver.start()
            } catch {
                try? await mock.shutdown()
                throw error
            }
            let node = CrashNode(directory: directory)
            do {
                try await self.run(node, mock: mock, webhook: webhook, signing: signing)
            } catch {
                node.kill()
                await node.shutdown()
                await webhook.stop()
                try? await mock.shutdown()
                throw error
            }
            node.kill()
            await node.shutdown()
            await webhook.stop()
            try await mock.shutdown()
        }
    }

    private func run(_ node: CrashNode, mock: MockAPNS, webhook: WebhookReceiver, signing: P256.Signing.PrivateKey) async throws {
        try node.configure(mock: mock, webhook: webhook, signing: signing, topic: Self.topic)
        try node.start()
        try await node.waitUntilReady()

        // Status installations, registered while APNs answers.
        var installations: [CrashNode.Installation] = []
        for index in 0..<24 {
            installations.append(try await node.register(token: String(format: "5a%062x", index), topic: Self.topic))
        }
        mock.fail(every: 1, status: 503, reason: "ServiceUnavailable")

        // Load until the kill: gorush answers at once in async mode, Status once the push is
        // queued. Each push carries a token of its own, so APNs's log says which arrived.
        let load = CrashLoad(installations: installations)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<3 {
                group.addTask { await load.gorush(node, worker: worker, topic: Self.topic) }
            }
            for worker in 0..<2 {
                group.addTask { await load.status(node, worker: worker, of: 2) }
            }
            defer { load.stop() }
            try await waitUntil(
                "pushes to be acknowledged before the kill (observed: gorush, Status)",
                within: .seconds(60),
                observing: { (load.gorushAcknowledged.count, load.statusAcknowledged.count) }
            ) { $0.0 >= 40 && $0.1 >= 12 }
            // Requests are in flight when the node dies.
            node.kill()
            load.stop()
            try await group.waitForAll()
        }
        let acknowledged = load.gorushAcknowledged + load.statusAcknowledged
        // APNs reads what the dead process had sent before it sees the connections close.
        try await waitUntil("APNs to see the killed node's connections close", within: .seconds(30), observing: { mock.openConnections }) { $0 == 0 }
        // Every push is still in its retries: APNs has accepted none.
        #expect(mock.accepted.isEmpty)
        // A request the dead process sent just before the kill can still be read by APNs after
        // it answers again (a push delivered whose end the journal never heard of): on these.
        let connectionsOfTheKilledNode = mock.connectionsOpened

        mock.fail(every: nil)
        try node.start()
        try await node.waitUntilReady()
        try await waitUntil(
            "every acknowledged push to reach APNs or the feedback webhook (observed: how many have not, the first of them)",
            within: .seconds(120),
            every: .milliseconds(100),
            observing: { () -> (missing: Int, first: String?) in
                let delivered = Set(mock.accepted.map(\.token))
                let failed = Set(webhook.received.compactMap { $0["token"] as? String })
                let missing = acknowledged.filter { !delivered.contains($0) && !failed.contains($0) }
                return (missing.count, missing.first)
            }
        ) { $0.missing == 0 }
        var delivered: [String: Int] = [:]
        for push in mock.accepted { delivered[push.token, default: 0] += 1 }
        let duplicates = delivered.filter { $0.value > 1 }
        print("acknowledged \(acknowledged.count), delivered after the restart \(delivered.count), reported failed \(webhook.received.count), delivered twice \(duplicates.count)")
        // A push reaches APNs twice only when the killed node's last request got there too.
        let fromTheKilledNode = Set(mock.accepted.filter { $0.connection <= connectionsOfTheKilledNode }.map(\.token))
        #expect(Set(duplicates.keys).isSubset(of: fromTheKilledNode), "delivered twice: \(duplicates.keys.sorted()), of which reached APNs from the killed node: \(fromTheKilledNode.sorted())")

        // The restart says what it resumed.
        // At least what was acknowledged: a push written whose answer the kill cut off is
        // resumed too.
        #expect(try await node.metric(#"herald_queue_resumed_total{owner="gorush"}"#) ?? 0 >= Double(load.gorushAcknowledged.count))
        #expect(try await node.metric(#"herald_queue_resumed_total{owner="status"}"#) ?? 0 >= Double(load.statusAcknowledged.count))
        // Once delivered, the journal is empty again.
        try await waitUntil(
            "the journal to be empty (observed: herald_queue_entries)",
            within: .seconds(30),
            every: .milliseconds(100),
            observing: { try await node.metric("herald_queue_entries") }
        ) { $0 == 0 }

        // A clean stop after that leaves nothing to resume.
        node.terminate()
        let exit = try await node.waitForExit()
        #expect(exit.status == 0 && !exit.signalled)
    }
}

/// Clients pushing through one node until told to stop; each push has a device token of its own.
final class CrashLoad: Sendable {
    private struct State {
        var gorush: [String] = []
        var status: [String] = []
        var stopped = false
    }

    let installations: [CrashNode.Installation]
    private let state = Mutex(State())

    init(installations: [CrashNode.Installation]) {
        self.installations = installations
    }

    var gorushAcknowledged: [String] { self.state.withLock { $0.gorush } }
    var statusAcknowledged: [String] { self.state.withLock { $0.status } }
    private var isStopped: Bool { self.state.withLock { $0.stopped } || Task.isCancelled }

    func stop() {
        self.state.withLock { $0.stopped = true }
    }

    /// Bounded by the stop and by a count: a node that keeps answering cannot run it forever.
    func gorush(_ node: CrashNode, worker: Int, topic: String) async {
        for index in 0..<100_000 where !self.isStopped {
            let token = String(format: "9c%02x%060x", worker, index)
            let body = Array(#"{"notifications":[{"platform":1,"topic":"\#(topic)","message":"crash","tokens":["\#(token)"]}]}"#.utf8)
            guard let (status, answer) = try? await node.post("/api/push", body) else { return }
            let json = try? JSONSerialization.jsonObject(with: Data(answer)) as? [String: Any]
            if status == 200, json?["success"] as? String == "ok", (json?["logs"] as? [Any])?.isEmpty ?? true {
                self.state.withLock { $0.gorush.append(token) }
            }
        }
    }

    /// One push request to each installation of this worker's share.
    func status(_ node: CrashNode, worker: Int, of workers: Int) async {
        for installation in self.installations.enumerated().filter({ $0.offset % workers == worker }).map(\.element) where !self.isStopped {
            guard let accepted = try? await node.push(to: installation) else { return }
            if accepted { self.state.withLock { $0.status.append(installation.token) } }
        }
    }
}

/// One `herald serve` process, alone, started and killed again in one data directory.
final class CrashNode: Sendable {
    struct Installation: Sendable {
        var client: StatusClient
        var installationID: String
        var accessToken: String
        var token: String
    }

    let directory: String
    let port: Int
    let serverKey: Secp256k1PrivateKey
    private let process = Mutex<ChildProcess?>(nil)
    private let http: HTTPClient

    init(directory: String) {
        self.directory = directory
        self.port = (try? EtcdCluster.freePort()) ?? 0
        self.serverKey = Secp256k1PrivateKey()
        var configuration = HTTPClient.Configuration()
        configuration.timeout.connect = TimeAmount(TestTime.bound(.seconds(10)))
        self.http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    func configure(mock: MockAPNS, webhook: WebhookReceiver, signing: P256.Signing.PrivateKey, topic: String) throws {
        try signing.pemRepresentation.write(toFile: self.directory + "/apns.p8", atomically: true, encoding: .utf8)
        try mock.certificatePEM.write(toFile: self.directory + "/apns-ca.pem", atomically: true, encoding: .utf8)
        try StatusIdentity.write(self.serverKey, toFile: self.directory + "/status.key")
        let yaml = """
            server:
              host: 127.0.0.1
              port: \(self.port)
            store:
              path: \(self.directory)/data
            log:
              level: notice
            gorush:
              sync: false
            status:
              identity-key-file: \(self.directory)/status.key
            feedback:
              url: \(webhook.url)
            delivery:
              default-app: demo
            apps:
              demo:
                apns:
                  key-file: \(self.directory)/apns.p8
                  key-id: CRASHKEY01
                  team-id: CRASHTEAM1
                  topic: \(topic)
                  host: 127.0.0.1
                  port: \(mock.port)
                  ca-file: \(self.directory)/apns-ca.pem

            """
        try yaml.write(toFile: self.directory + "/herald.yaml", atomically: true, encoding: .utf8)
    }

    func start() throws {
        let child = try ChildProcess(
            executable: HeraldExecutable.path,
            arguments: ["serve", "--config", self.directory + "/herald.yaml"],
            directory: self.directory,
            environment: ["PATH": "/usr/bin:/bin"]
        )
        self.process.withLock { $0 = child }
    }

    func kill() {
        self.process.withLock { $0 }?.signal(SIGKILL)
    }

    func terminate() {
        self.process.withLock { $0 }?.signal(SIGTERM)
    }

    func waitForExit() async throws -> (status: Int32, signalled: Bool, timedOut: Bool) {
        guard let child = self.process.withLock({ $0 }) else { return (0, false, false) }
        return try await child.waitForExit(timeout: AcceptedPushCrashTests.processLimit)
    }

    func waitUntilReady() async throws {
        do {
            try await waitUntil("the node to answer /readyz with 200", within: .seconds(60), every: .milliseconds(50), observing: { try? await self.get("/readyz").0 }) { $0 == 200 }
        } catch let timedOut as WaitTimedOut {
            throw FailoverError(description: "\(timedOut); output:\n\(self.process.withLock { $0 }?.output ?? "")")
        }
    }

    func get(_ path: String) async throws -> (Int, [UInt8]) {
        let response = try await self.http.execute(HTTPClientRequest(url: "http://127.0.0.1:\(self.port)\(path)"), timeout: TimeAmount(TestTime.bound(.seconds(30))))
        return (Int(response.status.code), Array(buffer: try await response.body.collect(upTo: 1 << 20)))
    }

    func post(_ path: String, _ body: [UInt8]) async throws -> (Int, [UInt8]) {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(self.port)\(path)")
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: body))
        let response = try await self.http.execute(request, timeout: TimeAmount(TestTime.bound(.seconds(30))))
        return (Int(response.status.code), Array(buffer: try await response.body.collect(upTo: 1 << 20)))
    }

    func register(token: String, topic: String) async throws -> Installation {
        let identity = Secp256k1PrivateKey()
        let client = StatusClient(identity: identity, server: self.serverKey.publicKey)
        let installation = UUID().uuidString.lowercased()
        let accessToken = UUID().uuidString.lowercased()
        let message = try client.registration(installationID: installation, version: 1, accessToken: accessToken, deviceToken: token, apnTopic: topic)
        let (status, body) = try await self.post("/waku/v1/messages", Array(try JSONEncoder().encode(message)))
        let answer = try #require(try JSONDecoder().decode([WakuMessage].self, from: Data(body)).first, "registration of \(token) unanswered (\(status))")
        try #require(try StatusAnswer(answer, openedWith: identity).registrationResponse().success)
        return Installation(client: client, installationID: installation, accessToken: accessToken, token: token)
    }

    /// Sends one push request to `installation`; `true` when the answer reports it accepted.
    func push(to installation: Installation) async throws -> Bool {
        let request = Protobuf_PushNotificationRequest.notifying(installation.client.hashedKey, installationID: installation.installationID, accessToken: installation.accessToken)
        let ephemeral = Secp256k1PrivateKey()
        let message = try StatusClient(server: self.serverKey.publicKey).pushRequest(request, ephemeral: ephemeral)
        let (_, body) = try await self.post("/waku/v1/messages", Array(try JSONEncoder().encode(message)))
        guard let answer = try JSONDecoder().decode([WakuMessage].self, from: Data(body)).first else { return false }
        return try StatusAnswer(answer, openedWith: ephemeral).pushResponse().reports.first?.success == true
    }

    /// The value of the sample `name` (with its labels) on `/metrics`.
    func metric(_ name: String) async throws -> Double? {
        let (_, body) = try await self.get("/metrics")
        let line = String(decoding: body, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix(name + " ") }
        return line.flatMap { Double($0.dropFirst(name.count + 1)) }
    }

    func shutdown() async {
        try? await self.http.shutdown()
    }
}
