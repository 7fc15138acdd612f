import Foundation
import HeraldCore
import HeraldTesting
import Logging
import Synchronization
import Testing

@testable import HeraldStore

#if canImport(Glibc)
import Glibc
#endif

/// Kills a process writing the store with SIGKILL at a random moment, then checks what it left.
///
/// `HERALD_CRASH_RUNS` sets how many kills one test run does (default 3).
@Suite(.serialized) struct CrashRecoveryTests {
    @Test func killedWriterLeavesALogPrefixAndAMatchingView() async throws {
        let binary = HeraldExecutable.path
        try #require(HeraldExecutable.exists, "build herald first: \(binary) is missing")
        let runs = Int(ProcessInfo.processInfo.environment["HERALD_CRASH_RUNS"] ?? "") ?? 3
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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()

        let acknowledged = Mutex(0)
        let reader = Thread {
            var pending = ""
            while true {
                let data = output.fileHandleForReading.availableData
                if data.isEmpty { break }
                pending += String(decoding: data, as: UTF8.self)
                while let newline = pending.firstIndex(of: "\n") {
                    let line = pending[..<newline]
                    if line.hasPrefix("appended "), let value = Int(line.dropFirst(9)) {
                        acknowledged.withLock { $0 = max($0, value) }
                    }
                    pending = String(pending[pending.index(after: newline)...])
                }
            }
        }
        reader.start()

        let deadline = ContinuousClock.now + .seconds(120)
        while acknowledged.withLock({ $0 }) < count, process.isRunning, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(2))
        }
        try await Task.sleep(for: .microseconds(Int.random(in: 0...3_000)))
        let killedAt = acknowledged.withLock { $0 }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal, "the writer exited by itself before the kill")
        // Lines printed between reading `killedAt` and the kill were acknowledged too.
        try await Task.sleep(for: .milliseconds(20))
        return max(killedAt, acknowledged.withLock { $0 })
    }
}
