import Foundation
import HeraldTestTraits
import HeraldTesting
import Testing

/// `herald send` and `herald --version`, the real binary, as an operator runs them.
@Suite(.loadHeavy) struct SendCommandTests {
    static func run(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        try #require(HeraldExecutable.exists, "build herald first: \(HeraldExecutable.path) is missing")
        let child = try ChildProcess(executable: HeraldExecutable.path, arguments: arguments, environment: ["PATH": "/usr/bin:/bin"])
        let exit = try await child.waitForExit(timeout: TestTime.bound(.seconds(60)))
        #expect(!exit.timedOut)
        return (exit.status, child.output)
    }

    @Test func versionNamesTheReleaseAndTheCommit() async throws {
        let (status, output) = try await Self.run(["--version"])
        #expect(status == 0)
        let line = output.trimmingCharacters(in: .whitespacesAndNewlines)
        let match = try #require(line.wholeMatch(of: /herald \d+\.\d+\.\d+ \(commit ([0-9a-f]{12}|unknown)(-dirty)?\)/), "\(line)")
        // Built in a checkout, it names the checkout's commit (the tests run from one).
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        if FileManager.default.fileExists(atPath: repository.appendingPathComponent(".git").path) {
            let git = try ChildProcess(executable: "/usr/bin/git", arguments: ["-c", "safe.directory=*", "-C", repository.path, "rev-parse", "--short=12", "HEAD"])
            _ = try await git.waitForExit(timeout: TestTime.bound(.seconds(30)))
            #expect(String(match.1) == git.output.trimmingCharacters(in: .whitespacesAndNewlines), "the binary may be older than HEAD: rebuild")
        }
    }

    @Test func aDeliveredPushExitsZeroPrintingTheAnswer() async throws {
        try await PushNodeHarness.with { harness in
            let (status, output) = try await Self.run([
                "send", "--config", harness.directory + "/herald.yaml", "--app", "toot", "--platform", "ios",
                "--token", PushNodeHarness.apnsToken(7), "--title", "Herald", "--message", "credentials work",
            ])
            #expect(status == 0, "\(output)")
            #expect(output.contains("status: 200"))
            let id = try #require(harness.production.accepted.last?.apnsID)
            #expect(output.contains("apns-id: \(id)"))
            #expect(output.contains("outcome: delivered"))
        }
    }

    @Test func aRefusedPushExitsOneAndWhatMakesNoPushSixtyFour() async throws {
        try await PushNodeHarness.with { harness in
            let token = PushNodeHarness.fcmToken(9)
            harness.fcm.script(token: token, .unregistered)
            let config = harness.directory + "/herald.yaml"
            let dead = try await Self.run(["send", "--config", config, "--app", "droid", "--token", token, "--message", "hi"])
            #expect(dead.status == 1, "\(dead.output)")
            #expect(dead.output.contains("status: 404"))
            #expect(dead.output.contains("outcome: dead_token"))
            let unknown = try await Self.run(["send", "--config", config, "--app", "nope", "--token", token, "--message", "hi"])
            #expect(unknown.status == 64)
            #expect(unknown.output.contains("no app nope"), "\(unknown.output)")
        }
    }
}
