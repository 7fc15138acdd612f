import Foundation
import HeraldCrypto
import HeraldStatus
import HeraldTestTraits
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
@Suite(.serialized, .loadHeavy) struct ClusterStoreSourceTests {
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
        #expect(try await clustered.waitFor(timeout: TestTime.bound(.seconds(60))) { $0.contains("Herald is listening") ? true : nil } == true)
        let client = StatusClient(identity: Secp256k1PrivateKey(), server: serverKey.publicKey)
        let installationID = UUID().uuidString.lowercased()
        var version: UInt64 = 0
        do {
            // Sent again until answered (bounded), as status-go does: a new message, a version
            // higher, each time; the node may still be taking its partitions.
            try await waitUntil("the clustered node to answer a registration", within: .seconds(60), every: .milliseconds(200)) {
                version += 1
                let registration = try client.registration(
                    installationID: installationID,
                    version: version,
                    accessToken: UUID().uuidString.lowercased(),
                    deviceToken: String(repeating: "ab", count: 32),
                    apnTopic: "im.status.ethereum"
                )
                var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/waku/v1/messages")!)
                request.httpMethod = "POST"
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
                request.timeoutInterval = TimeInterval(TestTime.bound(.seconds(60)).components.seconds)
                request.httpBody = try JSONEncoder().encode(registration)
                guard let (body, _) = try? await URLSession.shared.data(for: request),
                    let replies = try? JSONDecoder().decode([WakuMessage].self, from: body)
                else { return false }
                return !replies.isEmpty
            }
        } catch {
            // The node would outlive the test, holding the port.
            clustered.signal(SIGKILL)
            _ = try? await clustered.waitForExit(timeout: TestTime.bound(.seconds(30)))
            guard let timedOut = error as? WaitTimedOut else { throw error }
            throw FailoverError(description: "\(timedOut); the clustered node took no registration; output:\n\(clustered.output.suffix(4000))")
        }
        clustered.signal(SIGTERM)
        #expect(try await clustered.waitForExit(timeout: TestTime.bound(.seconds(60))).status == 0)
        let alone = try serve("clustered", [])
        let refusedAlone = try await alone.waitForExit(timeout: TestTime.bound(.seconds(60)))
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
        #expect(try await filled.waitForExit(timeout: TestTime.bound(.seconds(60))).status == 0, "\(filled.output.suffix(2000))")
        let joining = try serve("local", clusterFlags)
        let refusedInCluster = try await joining.waitForExit(timeout: TestTime.bound(.seconds(60)))
        #expect(refusedInCluster.status != 0 && !refusedInCluster.timedOut)
        #expect(joining.output.contains("built from the local log"), "\(joining.output.suffix(2000))")
    }
}
