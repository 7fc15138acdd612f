import Crypto
import Foundation
import HeraldTesting
import Testing

/// `herald config check FILE`: what an operator runs before `herald serve`, the real binary.
@Suite struct ConfigCheckTests {
    /// Runs `herald config check` on `yaml`; `prepare` writes files beside it first.
    static func check(_ yaml: (String) -> String, prepare: (String) throws -> Void = { _ in }) async throws -> (status: Int32, output: String) {
        try #require(HeraldExecutable.exists, "build herald first: \(HeraldExecutable.path) is missing")
        return try await withTemporaryDirectory { directory in
            try prepare(directory)
            try yaml(directory).write(toFile: directory + "/herald.yaml", atomically: true, encoding: .utf8)
            let child = try ChildProcess(executable: HeraldExecutable.path, arguments: ["config", "check", directory + "/herald.yaml"], environment: ["PATH": "/usr/bin:/bin"])
            let exit = try await child.waitForExit(timeout: TestTime.bound(.seconds(60)))
            #expect(!exit.timedOut)
            #expect(!FileManager.default.fileExists(atPath: directory + "/data"), "nothing is written under store.path")
            return (exit.status, child.output)
        }
    }

    static func apns(_ directory: String, keyFile: String = "key.p8") -> String {
        "apps:\n  wallet:\n    apns:\n      key-file: \(directory)/\(keyFile)\n      key-id: KEY0000001\n      team-id: TEAM000001\n      topic: im.herald.wallet\n"
    }

    static func writeKey(_ directory: String) throws {
        try P256.Signing.PrivateKey().pemRepresentation.write(toFile: directory + "/key.p8", atomically: true, encoding: .utf8)
    }

    @Test func aValidConfigurationPassesAndSaysWhatItNeeds() async throws {
        let (status, output) = try await Self.check({ "store:\n  path: \($0)/data\n" + Self.apns($0) }, prepare: Self.writeKey)
        #expect(status == 0, "\(output)")
        #expect(output.contains("the configuration is valid"))
        #expect(output.contains("apps: wallet"))
        #expect(output.contains("open files it needs:"))
    }

    @Test func anUnknownKeyIsRefusedNamingIt() async throws {
        let (status, output) = try await Self.check { "store:\n  path: \($0)/data\nserver:\n  prot: 8080\n" }
        #expect(status == 78)
        #expect(output.contains("server.prot"), "\(output)")
    }

    @Test func anUnreadableKeyFileIsRefusedNamingIt() async throws {
        let (status, output) = try await Self.check { "store:\n  path: \($0)/data\n" + Self.apns($0, keyFile: "missing.p8") }
        #expect(status == 78)
        #expect(output.contains("apps.wallet.apns.key-file"), "\(output)")
    }

    @Test func aFrontDoorNamingAnAppWithoutCredentialsIsRefused() async throws {
        let (status, output) = try await Self.check({ "store:\n  path: \($0)/data\n" + Self.apns($0) + "silent:\n  app: news\n" }, prepare: Self.writeKey)
        #expect(status == 78)
        #expect(output.contains("silent.app"), "\(output)")
    }
}
