import Foundation
import HeraldCore
import HeraldTestTraits
import HeraldTesting
import Logging
import Testing

@testable import HeraldStore

#if canImport(Glibc)
import Glibc
#endif

/// Kills a process writing the store with SIGKILL at a random moment, then checks what it left.
///
/// `TEST_CRASH_RUNS` sets how many kills one test run does (default 3).
@Suite(.serialized, .loadHeavy) struct CrashRecoveryTests {
    @Test func killedWriterLeavesALogPrefixAndAMatchingView() async throws {
        let binary = HeraldExecutable.devPath
        try #require(HeraldExecutable.devExists, "build herald-dev first: \(binary) is missing")
        let runs = Int(ProcessInfo.processInfo.environment["TEST_CRASH_RUNS"] ?? "") ?? 3
        var random = SystemRandomNumberGenerator()
        for run in 0..<runs {
            let seed = UInt64.random(in: 1...1_000_000, using: &random)
            let batch = [1, 7, 50, 200].randomElement(using: &random)!
            let killAfter = Int.random(in: 1...4_000, using: &random)
            try await self.killAndCheck(binary: binary, seed: seed, batch: batch, killAfter: killAfter, run: run)
        }
    }

    private func killAndCheck(binary: String, seed: UInt64, batch: Int, killAfter: Int, run: Int) async throws {
        let context = "run \(run): seed \(seed), batch \(batch), kill after \(killAfter) acknowledged"
        try await withTemporaryDirectory { path in
            let acknowledged = try await Self.runAndKill(
                binary: binary,
                arguments: ["store", "fill", "--path", path, "--count", "10000000", "--batch", "\(batch)", "--seed", "\(seed)", "--subjects", "500"],
                afterAcknowledged: killAfter
            )
            let stream = SyntheticCommands(seed: seed, subjects: 500)
            let store = try LocalStore(path: path)

            let before = try await store.verify()
            #expect(before.isConsistent, "\(context): \(before)")
            #expect(before.logHead >= LogPosition(acknowledged), "\(context): an acknowledged append was lost")

            let logged = try await store.log.entries(from: 1, limit: Int(before.logHead) + 1)
            #expect(logged.map(\.command) == stream.commands(0..<Int(before.logHead)), "\(context): the log is not a prefix of the stream")

            try await store.follower(logger: Logger(label: "test")).catchUp()
            let after = try await store.verify()
            #expect(after.isConsistent, "\(context): \(after)")
            #expect(after.appliedPosition == before.logHead, "\(context)")
            try await store.close()
        }
    }

    /// Starts the child, waits until it has printed `appended N` with N ≥ `count` (plus a random
    /// sliver of time so the kill lands anywhere in a transaction), then SIGKILLs it.
    /// Returns the highest N it printed.
    private static func runAndKill(binary: String, arguments: [String], afterAcknowledged count: Int) async throws -> Int {
        let child = try ChildProcess(executable: binary, arguments: arguments)
        _ = try await child.waitFor(timeout: TestTime.bound(.seconds(120))) { output in
            Self.acknowledged(in: output) >= count ? true : nil
        }
        // Not a wait for a condition: a random sliver so the kill lands anywhere in a transaction.
        try await Task.sleep(for: .microseconds(Int.random(in: 0...3_000)))
        child.signal(SIGKILL)
        // Lines the child printed before it died were acknowledged too: waitForExit returns once
        // the output is drained.
        let exit = try await child.waitForExit(timeout: TestTime.bound(.seconds(30)))
        #expect(exit.signalled, "the writer exited by itself before the kill")
        return Self.acknowledged(in: child.output)
    }

    static func acknowledged(in output: String) -> Int {
        output.split(separator: "\n").reversed().lazy.compactMap { line in
            line.hasPrefix("appended ") ? Int(line.dropFirst(9)) : nil
        }.first ?? 0
    }
}
