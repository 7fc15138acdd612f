import Foundation
import HeraldCrypto
import HeraldStatus
import HeraldTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

#if canImport(Glibc)
import Glibc
#endif

/// A store remembers which log built it: started against another, the node stops and says why
/// instead of skipping or overwriting commands.
// Serialized: it starts etcd on ports picked free just before.
@Suite(.serialized) struct ClusterStoreSourceTests {
    @Test func aStoreBuiltInAClusterIsRefusedAloneAndTheOtherWayRound() async throws {
        try #require(EtcdCluster.isInstalled, "etcd-server is not installed (scripts/install-deps.sh installs it)")
        try #require(HeraldExecutable.exists, "build herald first: \(HeraldExecutable.path) is missing")
        try await withTemporaryDirectory { directory in
            try await EtcdCluster.with(in: directory) { etcd in try await self.check(etcd, in: directory) }
        }
    }

    private func check(_ etcd: EtcdCluster, in directory: String) async throws {
        let port = try EtcdCluster.freePort()
        let serverKey = Secp256k1PrivateKey()
        try StatusIdentity.write(serverKey, toFile: directory + "/status.key")
        let clusterFlags = [
            "--status-identity-key-file", directory + "/status.key",
            "--status-gorush-url", "http://127.0.0.1:9/api/push",
            "--cluster-etcd-endpoints", etcd.endpoints.joined(separator: ","),
            "--store-encryption-key", EtcdCluster.testStoreKey,
            "--cluster-node-id", "node0",
            "--cluster-advertise-url", "http://127.0.0.1:\(port)",
            "--cluster-secret", "store-source-secret",
        ]
        func serve(_ store: String, _ extra: [String]) throws -> ChildProcess {
            try ChildProcess(
                executable: HeraldExecutable.path,
                arguments: ["serve", "--server-port", "\(port)", "--store-path", "\(directory)/\(store)"] + extra,
                directory: directory,
                environment: ["PATH": "/usr/bin:/bin"]
            )
        }

        // In a cluster, the empty store takes the etcd log and applies a registration; it is then
        // refused alone.
        let clustered = try serve("clustered", clusterFlags)
        #expect(try await clustered.waitFor(timeout: .seconds(30)) { $0.contains("Herald is listening") ? true : nil } == true)
        let identity = Secp256k1PrivateKey()
        let registration = try StatusClient(identity: identity, server: serverKey.publicKey).registration(
            installationID: UUID().uuidString.lowercased(),
            version: 1,
            accessToken: UUID().uuidString.lowercased(),
            deviceToken: String(repeating: "ab", count: 32),
            apnTopic: "im.status.ethereum"
        )
        var answered = false
        let deadline = ContinuousClock.now + .seconds(20)
        while !answered, ContinuousClock.now < deadline {
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/waku/v1/messages")!)
            request.httpMethod = "POST"
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONEncoder().encode(registration)
            if let (body, _) = try? await URLSession.shared.data(for: request), let replies = try? JSONDecoder().decode([WakuMessage].self, from: body), !replies.isEmpty {
                answered = true
            } else {
                try await Task.sleep(for: .milliseconds(200))
            }
        }
        #expect(answered, "the clustered node took no registration")
        clustered.signal(SIGTERM)
        #expect(try await clustered.waitForExit(timeout: .seconds(20)).status == 0)
        let alone = try serve("clustered", [])
        let refusedAlone = try await alone.waitForExit(timeout: .seconds(30))
        #expect(refusedAlone.status != 0 && !refusedAlone.timedOut)
        #expect(alone.output.contains("built from the etcd log etcd:"), "\(alone.output.suffix(2000))")

        // A store that followed its local log is refused in a cluster once it holds entries;
        // `store fill` writes some.
        let filled = try ChildProcess(
            executable: HeraldExecutable.devPath,
            arguments: ["store", "fill", "--path", "\(directory)/local", "--count", "10"],
            directory: directory,
            environment: ["PATH": "/usr/bin:/bin"]
        )
        #expect(try await filled.waitForExit(timeout: .seconds(60)).status == 0, "\(filled.output.suffix(2000))")
        let joining = try serve("local", clusterFlags)
        let refusedInCluster = try await joining.waitForExit(timeout: .seconds(30))
        #expect(refusedInCluster.status != 0 && !refusedInCluster.timedOut)
        #expect(joining.output.contains("built from the local log"), "\(joining.output.suffix(2000))")
    }
}
