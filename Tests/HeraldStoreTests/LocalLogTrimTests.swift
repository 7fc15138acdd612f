import Foundation
import HeraldCore
import HeraldTesting
import Logging
import Testing

@testable import HeraldStore

/// Alone, the store's own log folded into its base: the view still verifies against the base and
/// the log after it, positions go on from the head, and a reader below the base is told so.
@Suite struct LocalLogTrimTests {
    static func filled(_ path: String, count: Int, subjects: Int = 40, cipher: StoreCipher? = nil) async throws -> LocalStore {
        let store = try LocalStore(path: path, cipher: cipher)
        try await store.view.claimSource("local")
        let stream = SyntheticCommands(seed: 5, subjects: subjects)
        try await store.log.append(stream.commands(0..<count))
        try await store.follower(logger: Logger(label: "test")).catchUp()
        return store
    }

    @Test func foldingTheLogIntoItsBaseKeepsTheViewVerifiable() async throws {
        try await withTemporaryDirectory { path in
            let cipher = try StoreCipher(text: String(repeating: "55", count: 32))
            let store = try await Self.filled(path, count: 500, cipher: cipher)
            let digest = try store.view.digest()
            // In batches of 37, through position 300.
            var folded = 0
            while true {
                let batch = try await store.trimLog(through: 300, limit: 37)
                if batch == 0 { break }
                folded += batch
            }
            #expect(folded == 300)
            #expect(try store.logBasePosition() == 300)
            #expect(try await store.log.head() == 500)
            let verification = try await store.verify()
            #expect(verification.isConsistent, "\(verification)")
            #expect(verification.logBase == 300)
            #expect(try store.view.digest() == digest, "trimming never touches the view")
            let error = try await #require(throws: StoreError.self) { try await store.log.entries(from: 1, limit: 10) }
            #expect(error.code == .trimmed)
            #expect(try await store.log.entries(from: 301, limit: 1).first?.position == 301)

            // Never past the view, never the newest entry: the head stays the log's last key.
            #expect(try await store.trimLog(through: 10_000, limit: 10_000) == 199)
            #expect(try store.logBasePosition() == 499)
            try await store.close()

            // Reopened, the log goes on from its head, and the view still verifies.
            let reopened = try LocalStore(path: path, cipher: cipher)
            #expect(try await reopened.log.head() == 500)
            let next = try await reopened.log.append(SyntheticCommands(seed: 5, subjects: 40).command(at: 500))
            #expect(next == 501)
            try await reopened.follower(logger: Logger(label: "test")).catchUp()
            let again = try await reopened.verify()
            #expect(again.isConsistent, "\(again)")
            // A damaged base is caught: verify compares the view with it.
            try await reopened.close()
        }
    }

    @Test func aBaseThatDisagreesWithTheViewIsReported() async throws {
        try await withTemporaryDirectory { path in
            let store = try await Self.filled(path, count: 200)
            _ = try await store.trimLog(through: 150, limit: 1_000)
            // Wipe one base record behind the store's back, as a bug or damage would.
            let base = try store.environment.database(LocalStore.DatabaseName.logBase)
            try await store.writer.write { txn in
                var first: [UInt8]?
                try txn.forEach(in: base) { key, _ in
                    first = Array(key)
                    return false
                }
                if let first { _ = try txn.delete(in: base, key: first) }
            }
            let verification = try await store.verify()
            #expect(!verification.isConsistent)
            try await store.close()
        }
    }

    @Test func theTrimmerKeepsTheRetentionByCountAndByAge() async throws {
        try await withTemporaryDirectory { path in
            let store = try await Self.filled(path, count: 1_000)
            let clock = TestClock()
            var configuration = LocalLogTrimmer<TestClock>.Configuration(retention: LogRetention(revisions: 100, duration: .seconds(60)))
            configuration.batch = 64
            let trimmer = LocalLogTrimmer(configuration: configuration, store: store, clock: clock, logger: Logger(label: "test"))
            var history = LogRetention.HeadHistory<TestClock.Instant>()
            #expect(try await trimmer.turn(&history) == 0, "nothing is a minute old yet")
            clock.advance(by: .seconds(30))
            try await store.log.append(SyntheticCommands(seed: 5, subjects: 40).commands(1_000..<1_500))
            try await store.follower(logger: Logger(label: "test")).catchUp()
            #expect(try await trimmer.turn(&history) == 0)
            clock.advance(by: .seconds(31))
            // The head a minute ago was 1,000; 1,500 less 100 would allow more.
            #expect(try await trimmer.turn(&history) == 1_000)
            clock.advance(by: .seconds(31))
            // The head at 30 s was 1,500; now the count holds it: 1,400.
            #expect(try await trimmer.turn(&history) == 400)
            #expect(try store.logBasePosition() == 1_400)
            #expect(try await store.verify().isConsistent)
            try await store.close()
        }
    }
}
