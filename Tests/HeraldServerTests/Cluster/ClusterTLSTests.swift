import AsyncHTTPClient
import Foundation
import HeraldCluster
import HeraldConfig
import HeraldCrypto
import HeraldServer
import HeraldStatus
import HeraldTestTraits
import HeraldTesting
import Logging
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import HeraldCore
import NIOSSL
import ServiceLifecycle
import Synchronization
import Testing

/// Mutual TLS between nodes: the internal API moves to a TLS listener that takes only clients
/// holding a certificate of the cluster's CA, and forwarding goes over it.
// Serialized: it starts etcd and nodes on ports picked free just before.
@Suite(.serialized, .loadHeavy) struct ClusterTLSTests {
    @Test func registrationsAreForwardedOverMutualTLSAndOthersAreTurnedAway() async throws {
        try #require(EtcdCluster.isInstalled, "etcd-server is not installed (scripts/install-deps.sh installs it)")
        try await withTemporaryDirectory { directory in
            try await EtcdCluster.with(in: directory) { etcd in try await self.check(etcd, in: directory) }
        }
    }

    private func check(_ etcd: EtcdCluster, in directory: String) async throws {
        let authority = try TestCertificateAuthority()
        try authority.certificatePEM.write(toFile: directory + "/ca.pem", atomically: true, encoding: .utf8)
        let serverKey = Secp256k1PrivateKey()
        try StatusIdentity.write(serverKey, toFile: directory + "/status.key")
        var nodes: [HeraldNode] = []
        var internalPorts: [Int] = []
        for index in 0..<2 {
            let leaf = try authority.issue(commonName: "node\(index)")
            try leaf.certificatePEM.write(toFile: "\(directory)/node\(index).pem", atomically: true, encoding: .utf8)
            try leaf.privateKeyPEM.write(toFile: "\(directory)/node\(index)-key.pem", atomically: true, encoding: .utf8)
            let port = try EtcdCluster.freePort()
            let internalPort = try EtcdCluster.freePort()
            internalPorts.append(internalPort)
            let effective = try await HeraldConfiguration.load(
                from: ConfigurationSources(
                    arguments: [
                        "--store-path", "\(directory)/node\(index)",
                        "--status-identity-key-file", directory + "/status.key",
                        "--status-gorush-url", "http://127.0.0.1:9/api/push",
                        "--cluster-etcd-endpoints", etcd.endpoints.joined(separator: ","),
                        "--store-encryption-key", EtcdCluster.testStoreKey,
                        "--cluster-partitions", "16",
                        "--cluster-node-id", "node\(index)",
                        "--server-port", "\(port)",
                        "--cluster-secret", "cluster-secret-for-tests",
                        "--cluster-tls-certificate-file", "\(directory)/node\(index).pem",
                        "--cluster-tls-key-file", "\(directory)/node\(index)-key.pem",
                        "--cluster-tls-ca-file", "\(directory)/ca.pem",
                        "--cluster-internal-port", "\(internalPort)",
                    ],
                    defaultFilePath: "/nonexistent/herald.yaml"
                )
            )
            #expect(effective.configuration.advertiseURL == "https://127.0.0.1:\(internalPort)")
            nodes.append(try HeraldNode.build(configuration: effective.configuration, logger: Logger(label: "tls-node\(index)")))
        }
        let group = ServiceGroup(configuration: .init(services: nodes.map(\.application), logger: Logger(label: "test")))
        // A node that stops early (a failed start) takes the group down; the wait below says so.
        let ended = Mutex<String?>(nil)
        let serving = Task {
            do {
                try await group.run()
                ended.withLock { $0 = $0 ?? "the nodes' group ended" }
            } catch {
                ended.withLock { $0 = "the nodes' group failed: \(error)" }
                throw error
            }
        }
        do {
            try await self.exercise(nodes, internalPorts: internalPorts, serverKey: serverKey, authority: authority, in: directory, ended: { ended.withLock { $0 } })
        } catch {
            await group.triggerGracefulShutdown()
            _ = try? await serving.value
            throw error
        }
        await group.triggerGracefulShutdown()
        try await serving.value
    }

    private func exercise(
        _ nodes: [HeraldNode],
        internalPorts: [Int],
        serverKey: Secp256k1PrivateKey,
        authority: TestCertificateAuthority,
        in directory: String,
        ended: @Sendable () -> String?
    ) async throws {
        // Bounded generously: at the start of the full suite, a hundred tests share two cores. A
        // group that ended (a node failed to start) ends the wait with its error.
        let met = try await waitUntil(
            "the two nodes to see each other (observed: whether the nodes' group ended, and each node's members)",
            within: .seconds(60),
            every: .milliseconds(20),
            observing: { () -> (ended: String?, members: [String]) in
                (ended(), nodes.map { node in node.forwarder.map { "\($0.membership.snapshot.members.map(\.id)) registered \($0.membership.snapshot.registered) etcd \($0.membership.snapshot.backendReachable)" } ?? "-" })
            }
        ) { $0.ended != nil || nodes.allSatisfy { $0.forwarder?.membership.snapshot.members.count == 2 } }
        try #require(met.ended == nil, "the nodes stopped before they saw each other: \(met.ended ?? "") (\(met.members))")
        let forwarder = try #require(nodes[0].forwarder)
        #expect(forwarder.membership.snapshot.members.allSatisfy { $0.url.hasPrefix("https://") })

        // A registration node1 owns, sent to node0: forwarded over mutual TLS.
        var identity = Secp256k1PrivateKey()
        while case .local = forwarder.decide(partition: forwarder.partition(of: PartitionKey(scope: .status, subject: StatusIdentity.hashedKey(identity.publicKey))), forwardedFrom: nil) {
            identity = Secp256k1PrivateKey()
        }
        let client = StatusClient(identity: identity, server: serverKey.publicKey)
        let installationID = UUID().uuidString.lowercased()
        let accessToken = UUID().uuidString.lowercased()
        // Unanswered is the protocol's "send again", and status-go sends a new message then: the
        // owner may still be taking over its partitions just after the nodes met. Bounded.
        var attempts = 0
        let answers = try await waitUntil(
            "node0 to answer a registration node1 owns, forwarded over mutual TLS",
            within: .seconds(60),
            // The pause a client makes before sending again.
            every: .milliseconds(500),
            observing: { () async throws -> [WakuMessage] in
                attempts += 1
                // Each attempt a version higher: one whose answer alone was lost may have been stored.
                let message = try client.registration(
                    installationID: installationID,
                    version: UInt64(attempts),
                    accessToken: accessToken,
                    deviceToken: String(repeating: "ab", count: 32),
                    apnTopic: "im.status.ethereum"
                )
                var request = HTTPClientRequest(url: "http://127.0.0.1:\(nodes[0].configuration.server.port)/waku/v1/messages")
                request.method = .POST
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(ByteBuffer(data: try JSONEncoder().encode(message)))
                let response = try await HTTPClient.shared.execute(request, timeout: TimeAmount(TestTime.bound(.seconds(60))))
                let answers = try JSONDecoder().decode([WakuMessage].self, from: Data(buffer: try await response.body.collect(upTo: 1 << 20)))
                if answers.isEmpty { print("ClusterTLSTests: registration attempt \(attempts) was not answered; sending a new one") }
                return answers
            }
        ) { !$0.isEmpty }
        try #require(answers.count == 1)
        #expect(try StatusAnswer(answers[0], openedWith: identity).registrationResponse().success)

        // The public port no longer serves the internal API.
        var internalOnPublic = HTTPClientRequest(url: "http://127.0.0.1:\(nodes[1].configuration.server.port)/internal/v1/status/messages")
        internalOnPublic.method = .POST
        internalOnPublic.headers.add(name: "Authorization", value: "Bearer cluster-secret-for-tests")
        internalOnPublic.body = .bytes(ByteBuffer(string: "{}"))
        #expect(try await HTTPClient.shared.execute(internalOnPublic, timeout: TimeAmount(TestTime.bound(.seconds(30)))).status == .notFound)

        // The internal listener refuses a client without a certificate of the CA, secret or not.
        let roots = try NIOSSLCertificate.fromPEMFile(directory + "/ca.pem")
        var trusting = TLSConfiguration.makeClientConfiguration()
        trusting.trustRoots = .certificates(roots)
        trusting.certificateVerification = .noHostnameVerification
        for tls in [trusting, try Self.withForeignCertificate(trusting)] {
            var configuration = HTTPClient.Configuration()
            configuration.tlsConfiguration = tls
            let outsider = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            var forged = HTTPClientRequest(url: "https://127.0.0.1:\(internalPorts[1])/internal/v1/status/messages")
            forged.method = .POST
            forged.headers.add(name: "Authorization", value: "Bearer cluster-secret-for-tests")
            forged.body = .bytes(ByteBuffer(string: "{}"))
            await #expect(throws: (any Error).self) {
                let answer = try await outsider.execute(forged, timeout: TimeAmount(TestTime.bound(.seconds(30))))
                _ = try await answer.body.collect(upTo: 1 << 20)
            }
            try await outsider.shutdown()
        }
    }

    /// `base` presenting a certificate another CA signed.
    private static func withForeignCertificate(_ base: TLSConfiguration) throws -> TLSConfiguration {
        let foreign = try TestCertificateAuthority(name: "Someone else").issue(commonName: "intruder")
        var tls = base
        tls.certificateChain = [.certificate(try NIOSSLCertificate(bytes: Array(foreign.certificatePEM.utf8), format: .pem))]
        tls.privateKey = .privateKey(try NIOSSLPrivateKey(bytes: Array(foreign.privateKeyPEM.utf8), format: .pem))
        return tls
    }
}
