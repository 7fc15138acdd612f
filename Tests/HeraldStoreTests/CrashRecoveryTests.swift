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

    /// A writer trimming its log as it appends (`--retain`), killed at a random moment: the log
    /// after its base is a stretch of the stream, and the view verifies against base and log.
    @Test func killedWriterWhileTrimmingLeavesAVerifiableBaseAndLog() async throws {
        let binary = HeraldExecutable.devPath
        try #require(HeraldExecutable.devExists, "build herald-dev first: \(binary) is missing")
        let runs = Int(ProcessInfo.processInfo.environment["TEST_CRASH_RUNS"] ?? "") ?? 3
        var random = SystemRandomNumberGenerator()
        for run in 0..<runs {
            let seed = UInt64.random(in: 1...1_000_000, using: &random)
            let killAfter = Int.random(in: 2_000...6_000, using: &random)
            let context = "run \(run): seed \(seed), kill after \(killAfter) acknowledged"
            try await withTemporaryDirectory { path in
                let acknowledged = try await Self.runAndKill(
                    binary: binary,
                    arguments: ["store", "fill", "--path", path, "--count", "10000000", "--batch", "50", "--seed", "\(seed)", "--subjects", "300", "--retain", "500"],
                    afterAcknowledged: killAfter
                )
                let store = try LocalStore(path: path)
                let verification = try await store.verify()
                #expect(verification.isConsistent, "\(context): \(verification)")
                #expect(verification.logHead >= LogPosition(acknowledged), "\(context): an acknowledged append was lost")
                #expect(verification.logBase > 0, "\(context): nothing was trimmed before the kill")
                let base = Int(verification.logBase)
                let logged = try await store.log.entries(from: LogPosition(base + 1), limit: Int(verification.logHead) - base)
                #expect(logged.map(\.command) == SyntheticCommands(seed: seed, subjects: 300).commands(base..<Int(verification.logHead)), "\(context)")
                try await store.follower(logger: Logger(label: "test")).catchUp()
                #expect(try await store.verify().isConsistent, "\(context)")
                try await store.close()
            }
        }
    }

    /// `herald store restore` killed at a random moment leaves the store it replaces or the
    /// snapshot's, whole: `verify` accepts it and its digest is one of the two.
    @Test func killedRestoreLeavesTheOldStoreOrTheNewOne() async throws {
        try #require(HeraldExecutable.exists && HeraldExecutable.devExists, "build herald and herald-dev first")
        let runs = Int(ProcessInfo.processInfo.environment["TEST_CRASH_RUNS"] ?? "") ?? 3
        try await withTemporaryDirectory { root in
            func run(_ binary: String, _ arguments: [String]) async throws {
                let child = try ChildProcess(executable: binary, arguments: arguments)
                let exit = try await child.waitForExit(timeout: TestTime.bound(.seconds(120)))
                #expect(exit.status == 0 && !exit.signalled, "\(arguments): \(child.output)")
            }
            func digest(_ path: String) async throws -> RegistryDigest {
                let store = try LocalStore(path: path)
                defer { store.environment.close() }
                let verification = try await store.verify()
                #expect(verification.isConsistent, "\(path): \(verification)")
                return try store.view.digest()
            }
            try await run(HeraldExecutable.devPath, ["store", "fill", "--path", root + "/source", "--count", "40000", "--batch", "200", "--seed", "11", "--subjects", "20000"])
            try await run(HeraldExecutable.path, ["store", "snapshot", "--path", root + "/source", "--out", root + "/source.snapshot"])
            let new = try await digest(root + "/source")
            // How long a whole restore takes here, so the kills land across all of it.
            let clock = ContinuousClock()
            let whole = try await clock.measure {
                try await run(HeraldExecutable.path, ["store", "restore", "--path", root + "/timed", root + "/source.snapshot"])
            }
            #expect(try await digest(root + "/timed") == new)
            var random = SystemRandomNumberGenerator()
            var outcomes: [String] = []
            for attempt in 0..<runs {
                let target = root + "/target-\(attempt)"
                try await run(HeraldExecutable.devPath, ["store", "fill", "--path", target, "--count", "300", "--batch", "50", "--seed", "\(attempt + 20)", "--subjects", "100"])
                let old = try await digest(target)
                let child = try ChildProcess(executable: HeraldExecutable.path, arguments: ["store", "restore", "--path", target, root + "/source.snapshot"])
                // Not a wait for a condition: the kill's moment is what varies.
                // Spread over the restore and a little past it, jittered.
                try await Task.sleep(for: whole * ((Double(attempt) + Double.random(in: 0...1, using: &random)) / Double(runs) * 1.3))
                child.signal(SIGKILL)
                _ = try await child.waitForExit(timeout: TestTime.bound(.seconds(30)))
                let after = try await digest(target)
                #expect(after == old || after == new, "attempt \(attempt): the store is neither the old one nor the snapshot's")
                outcomes.append(after == new ? "new" : "old")
            }
            // Which of the two depends on the moment; either is right. Recorded for the log.
            print("killed restores left: \(outcomes)")
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
