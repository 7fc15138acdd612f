import AsyncHTTPClient
import Foundation
import HeraldCluster
import HeraldConfig
import HeraldCore
import HeraldFrontDoor
import HeraldServer
import HeraldStore
import HeraldTestTraits
import HeraldTesting
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOHTTP1
import Testing

/// A front door that keeps state is still its folder and one line: its registration scope and
/// marker namespace are declared there, its writes reach their owner through `PartitionRouting`,
/// and its errors render themselves.
@Suite struct PagerFrontDoorTests {
    /// The one line.
    static let frontDoors: [any FrontDoor.Type] = HeraldNode.frontDoors + [PagerFrontDoor.self]

    func node(_ path: String, frontDoors: [any FrontDoor.Type] = Self.frontDoors) async throws -> HeraldNode {
        let effective = try await HeraldConfiguration.load(
            from: ConfigurationSources(arguments: ["--pager-enabled", "true", "--store-path", path], defaultFilePath: "/nonexistent/herald.yaml"),
            frontDoors: frontDoors
        )
        return try HeraldNode.build(configuration: effective.configuration, logger: Logger(label: "test"), frontDoors: frontDoors)
    }

    @Test func itKeepsDevicesInItsScopeAndPagesInItsNamespace() async throws {
        try await withTemporaryDirectory { path in
            let node = try await self.node(path)
            try await node.application.test(.router) { client in
                try await client.execute(uri: "/pager/v1/devices/alice", method: .put, body: ByteBuffer(string: "a1b2c3")) { response in
                    #expect(response.status == .noContent)
                }
                try await client.execute(uri: "/pager/v1/devices/alice", method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(String(buffer: response.body) == "a1b2c3")
                }
                try await client.execute(uri: "/pager/v1/pages/p-1", method: .post) { response in
                    #expect(response.status == .accepted)
                }
                try await client.execute(uri: "/pager/v1/pages/p-1", method: .post) { response in
                    #expect(response.status == .conflict)
                    #expect(response.headers[.contentType] == "application/json")
                    #expect(String(buffer: response.body) == #"{"error":"page p-1 was already accepted"}"#)
                }
                try await client.execute(uri: "/pager/v1/devices/bob", method: .get) { response in
                    #expect(response.status == .notFound)
                    #expect(String(buffer: response.body) == #"{"error":"no device is registered by that name"}"#)
                }
                let stored = try node.store.view.registrations(scope: .pager, subject: Array("alice".utf8))
                #expect(stored.map(\.device.token) == ["a1b2c3"])
                #expect(stored.first?.key.scope.rawValue == 200)
                let pages = MessageMarkers.Namespace(200, name: "example-pager-page", ttl: .seconds(1))
                #expect(try node.store.markers.contains(Array("p-1".utf8), in: pages, now: UInt64(Date().timeIntervalSince1970)))
            }
        }
    }

    @Test func twoDoorsDeclaringOneNamespaceStopStartUp() async throws {
        _ = try await withTemporaryDirectory { path in
            await #expect {
                try await self.node(path, frontDoors: Self.frontDoors + [ImpostorFrontDoor.self])
            } throws: { error in
                let error = error as? StoreError
                return error?.code == .clash
                    && error?.message.contains("pager and impostor both declare the marker namespace number 200") == true
                    && error?.message.contains("'example-pager-page' 200, 'impostor-pages' 200") == true
            }
        }
    }

    @Test func theDoorsInHeraldsTreeDeclareSpacesOfTheirOwn() throws {
        let spaces = try HeraldNode.storeSpaces(of: HeraldNode.frontDoors, configuration: HeraldConfiguration())
        #expect(Set(spaces.registrationScopes.map(\.rawValue)) == [1, 2, 3])
        #expect(Set(spaces.markerNamespaces.map(\.rawValue)) == [1, 2, 3, 4, 5, 6, 7, 8])
    }
}

/// Declares the pager's marker namespace number as its own: the node must refuse both.
struct ImpostorFrontDoor: FrontDoor {
    struct Configuration: ConfigurationSectionValue {
        static let section = "impostor"
        static let keys: [ConfigurationKey] = []
        init() {}
        init(reading section: ConfigurationSection) throws {}
    }

    static func make(configuration: Configuration, context: FrontDoorContext) throws -> ImpostorFrontDoor? { nil }

    static func storeSpaces(configuration: Configuration) -> StoreSpaces {
        StoreSpaces(markerNamespaces: [MessageMarkers.Namespace(200, name: "impostor-pages", ttl: .seconds(60))])
    }

    func registerRoutes(on router: some RouterMethods<HeraldRequestContext>) {}

    var summary: FrontDoorSummary { FrontDoorSummary("impostor") }
}

/// In a cluster, a device registered through a node that does not own its name is written by the
/// owner and read back through either node.
@Suite(.serialized, .loadHeavy) struct PagerClusterTests {
    @Test func aRegistrationThroughAnyNodeIsWrittenByTheNamesOwner() async throws {
        let cluster = ClusterRegistryTests()
        try await cluster.withNodes(2, etcdMembers: 1, frontDoors: PagerFrontDoorTests.frontDoors, arguments: ["--pager-enabled", "true"]) { nodes, _, _, _ in
            try await cluster.running(nodes[0]) { first in
                try await cluster.running(nodes[1]) { second in
                    try await cluster.waitForMembers(nodes, count: 2)
                    let forwarder = try #require(nodes[0].forwarder)
                    var forwarded = 0
                    for index in 0..<8 {
                        let name = "device\(index)"
                        let owned = forwarder.decide(partition: forwarder.partition(of: PartitionKey(scope: .pager, subject: Array(name.utf8))), forwardedFrom: nil) == .local
                        // Through the node that does not own it, so the write is forwarded.
                        let through = owned ? second : first
                        #expect(try await Self.put("/pager/v1/devices/\(name)", "token\(index)", port: through) == 204)
                        forwarded += 1
                        for port in [first, second] {
                            try await waitUntil("\(name) to be readable through port \(port)", within: TestTime.bound(.seconds(30)), observing: {
                                try? await cluster.get("/pager/v1/devices/\(name)", port: port)
                            }) { answer in answer?.status == .ok && answer.map { String(buffer: $0.body) } == "token\(index)" }
                        }
                    }
                    #expect(forwarded == 8)
                }
            }
        }
    }

    static func put(_ path: String, _ body: String, port: Int) async throws -> UInt {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = .PUT
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await HTTPClient.shared.execute(request, timeout: TimeAmount(TestTime.bound(.seconds(60))))
        return response.status.code
    }
}
