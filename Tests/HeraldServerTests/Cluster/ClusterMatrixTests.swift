import Crypto
import Foundation
import HeraldCluster
import HeraldTestTraits
import HeraldTesting
import Testing

/// The Matrix gateway in a cluster of real `herald` processes: each device is pushed at the
/// owner of its pushkey's partition, so a homeserver that retries through another node is not
/// pushed twice, and a dead pushkey learned by its owner is rejected whichever node asks.
// Serialized: it starts etcd and two nodes on ports picked free just before.
@Suite(.serialized, .loadHeavy) struct ClusterMatrixTests {
    static let topic = "im.herald.matrix"

    static func pushkey(_ index: Int) -> (token: String, pushkey: String) {
        let token = String(format: "%064x", 0x5eed_0000 + index)
        let bytes = stride(from: 0, to: 64, by: 2).map { UInt8(token.dropFirst($0).prefix(2), radix: 16)! }
        return (token, Data(bytes).base64EncodedString())
    }

    static func answer(_ body: [UInt8]) throws -> [String] {
        try #require((try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])?["rejected"] as? [String], "\(String(decoding: body, as: UTF8.self))")
    }

    @Test func aRetryThroughAnotherNodePushesNoDeviceTwiceAndDeadPushkeysAreRejectedEverywhere() async throws {
        try #require(EtcdCluster.isInstalled, "etcd-server is not installed (scripts/install-deps.sh installs it)")
        try #require(HeraldExecutable.exists, "build herald first: \(HeraldExecutable.path) is missing")
        try await withTemporaryDirectory { directory in
            try await FailoverCluster.with(nodes: 2, leaseTTL: 2, topic: Self.topic, in: directory, extraYAML: "matrix:\n  apps: org.example.ios=demo\n") { cluster in
                try await cluster.waitUntilReady()
                // Eight devices: with two nodes some pushkeys are owned by each, so both a device
                // handled where the request arrived and one forwarded to its owner are exercised.
                let devices = (0..<8).map(Self.pushkey)
                let map = PartitionMap(partitions: FailoverCluster.partitions, members: cluster.nodeIDs)
                let owners = devices.map { device in
                    map.owner(of: PartitionKey(bytes: Array(SHA256.hash(data: Array("org.example.ios\u{0}\(device.pushkey)".utf8)))).partition(of: FailoverCluster.partitions))
                }
                #expect(Set(owners) == ["node0", "node1"], "devices owned by each node: handled here and forwarded")
                cluster.mock.script(token: devices[7].token, .unregistered(since: Date(timeIntervalSince1970: 1_700_000_000)))
                let list = devices.map { #"{"app_id":"org.example.ios","pushkey":"\#($0.pushkey)","pushkey_ts":1600000000,"data":{"format":"event_id_only"}}"# }
                let body = Array(#"{"notification":{"event_id":"$cluster1","room_id":"!r:example.org","counts":{"unread":1},"devices":[\#(list.joined(separator: ","))]}}"#.utf8)
                let first = try await cluster.post("/_matrix/push/v1/notify", body, port: cluster.ports[0])
                #expect(first.0 == 200, "\(String(decoding: first.1, as: UTF8.self))")
                #expect(try Self.answer(first.1) == [devices[7].pushkey])
                #expect(cluster.mock.accepted.count == 7)
                // The homeserver lost the answer and retries through the other node.
                let retried = try await cluster.post("/_matrix/push/v1/notify", body, port: cluster.ports[1])
                #expect(retried.0 == 200)
                #expect(try Self.answer(retried.1) == [devices[7].pushkey], "the owner remembers the rejection")
                #expect(cluster.mock.accepted.count == 7, "no device was pushed twice")
                #expect(Set(cluster.mock.accepted.map(\.token)) == Set(devices.prefix(7).map(\.token)))
                // A new event: pushed once more to each live device, the dead one rejected without asking APNs.
                let requests = cluster.mock.requestCount
                let next = Array(String(decoding: body, as: UTF8.self).replacingOccurrences(of: "$cluster1", with: "$cluster2").utf8)
                let second = try await cluster.post("/_matrix/push/v1/notify", next, port: cluster.ports[1])
                #expect(try Self.answer(second.1) == [devices[7].pushkey])
                #expect(cluster.mock.accepted.count == 14)
                #expect(cluster.mock.requestCount == requests + 7, "the dead pushkey was answered from memory")
            }
        }
    }
}
