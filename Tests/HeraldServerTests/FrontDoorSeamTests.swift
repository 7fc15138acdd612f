import Foundation
import HeraldConfig
import HeraldFrontDoor
import HeraldServer
import HeraldStore
import HeraldTesting
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// Adding a front door is its folder (`ExampleFrontDoor/`) and one line in the list the node is
/// built with: its keys are read, documented and refused when unknown, its routes sit behind the
/// API token, its service runs and drains with the node.
@Suite struct FrontDoorSeamTests {
    /// The one line: `HeraldNode.frontDoors` plus the new door.
    static let frontDoors: [any FrontDoor.Type] = HeraldNode.frontDoors + [EchoFrontDoor.self]

    func load(_ arguments: [String]) async throws -> EffectiveConfiguration {
        try await HeraldConfiguration.load(
            from: ConfigurationSources(arguments: arguments, defaultFilePath: "/nonexistent/herald.yaml"),
            frontDoors: Self.frontDoors
        )
    }

    @Test func itsKeysAreReadDocumentedAndCheckedLikeEveryOther() async throws {
        let keys = HeraldConfiguration.keys(frontDoors: Self.frontDoors).map(\.name)
        #expect(keys.contains("echo.greeting") && keys.contains("echo.repeats"))
        #expect(HeraldConfiguration.markdownReference(frontDoors: Self.frontDoors).contains("| `echo.repeats` | `HERALD_ECHO_REPEATS` | `--echo-repeats` |"))

        let configuration = try await load(["--echo-greeting", "hi", "--echo-repeats", "2"]).configuration
        #expect(configuration.frontDoors[EchoConfiguration.self].greeting == "hi")
        #expect(configuration.frontDoors[EchoConfiguration.self].repeats == 2)

        await #expect {
            try await load(["--echo-repeats", "9"])
        } throws: { error in
            let error = error as? ConfigurationError
            return error?.code == .invalidValue && error?.message.contains("echo.repeats (flag --echo-repeats)") == true
        }
        // Without its line, its keys are unknown like any misspelt one.
        await #expect {
            try await HeraldConfiguration.load(from: ConfigurationSources(arguments: ["--echo-greeting", "hi"], defaultFilePath: "/nonexistent/herald.yaml"))
        } throws: { error in
            (error as? ConfigurationError)?.code == .unknownKey
        }
    }

    @Test func itsRoutesAreBehindTheAPITokenAndItsServiceRunsWithTheNode() async throws {
        try await withTemporaryDirectory { path in
            let effective = try await load(["--echo-greeting", "hi", "--echo-repeats", "2", "--api-bearer-token", "s3cret", "--store-path", path])
            let node = try HeraldNode.build(configuration: effective.configuration, logger: Logger(label: "test"), frontDoors: Self.frontDoors)
            let echo = try #require(node.frontDoor(EchoFrontDoor.self))
            #expect(echo.summary.message == "front door: echo GET /echo/v1")
            #expect(node.frontDoors.count == 1, "gorush needs an app and Status a key; only echo is on")

            // The router test runs the node's services around the requests and shuts them down
            // gracefully afterwards.
            try await node.application.test(.router) { client in
                try await client.execute(uri: "/echo/v1", method: .get) { response in
                    #expect(response.status == .unauthorized)
                }
                try await client.execute(uri: "/echo/v1", method: .get, headers: [.authorization: "Bearer s3cret"]) { response in
                    #expect(response.status == .ok)
                    #expect(String(buffer: response.body) == "hi hi")
                }
            }
            #expect(echo.lifecycle.recorded == ["started", "stopped"])
        }
    }

    @Test func anUnconfiguredFrontDoorIsNotBuilt() async throws {
        try await withTemporaryDirectory { path in
            let effective = try await load(["--store-path", path])
            let node = try HeraldNode.build(configuration: effective.configuration, logger: Logger(label: "test"), frontDoors: Self.frontDoors)
            #expect(node.frontDoor(EchoFrontDoor.self) == nil)
            try await node.close()
        }
    }
}
