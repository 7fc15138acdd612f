import HeraldCore
import HeraldTesting
import Logging
import Testing

@testable import HeraldStore

@Suite struct RegistryViewTests {
    let stream = SyntheticCommands(seed: 5, subjects: 300)

    func entries(_ range: Range<Int>) -> [LogEntry] {
        range.map { LogEntry(position: LogPosition($0 + 1), command: stream.command(at: $0)) }
    }

    @Test func lmdbViewMatchesTheInMemoryReference() async throws {
        try await withTemporaryDirectory { path in
            let store = try LocalStore(path: path)
            let reference = InMemoryRegistryView()
            for start in stride(from: 0, to: 3_000, by: 250) {
                try await store.view.apply(entries(start..<start + 250))
                reference.apply(entries(start..<start + 250))
            }
            #expect(try store.view.appliedPosition() == 3_000)
            #expect(try store.view.allRecords() == reference.allRecords())
            #expect(try store.view.recordCount() == reference.recordCount())
            try await store.close()
        }
    }

    @Test func viewsThatAppliedTheSameLogHaveOneDigest() async throws {
        try await withTemporaryDirectory { path in
            let store = try LocalStore(path: path)
            let reference = InMemoryRegistryView()
            try await store.view.apply(entries(0..<500))
            reference.apply(entries(0..<500))
            let digest = try store.view.digest()
            #expect(digest == reference.digest())
            #expect(digest.appliedPosition == 500)
            #expect(digest.records == reference.recordCount())
            #expect(digest.sha256.count == 64)
            // A new record changes it.
            let key = SyntheticCommands.key(subject: 10_000, installation: 0)
            try await store.view.apply([LogEntry(position: 501, command: .register(Registration(key: key, version: 1, device: Device(platform: .apns, token: "aa"))))])
            #expect(try store.view.digest().sha256 != digest.sha256)
            try await store.close()
        }
    }

    @Test func aViewFollowsOneLogOnly() async throws {
        try await withTemporaryDirectory { path in
            let store = try LocalStore(path: path)
            // A store from before sources were recorded, whose own log holds what it applied:
            // it followed its local log, and may go on doing so, but never an etcd log.
            try await store.log.append(entries(0..<10).map(\.command))
            try await store.view.apply(entries(0..<10))
            await #expect(throws: StoreError(.wrongLog, "")) { try await store.view.claimSource("etcd:1a2b/herald/") }
            try await store.view.claimSource("local")
            try await store.view.waitForSourceClaim()
            await #expect(throws: StoreError(.wrongLog, "")) { try await store.view.claimSource("etcd:1a2b/herald/") }
            try await store.close()
            // Recorded durably: reopened, it still refuses.
            let reopened = try LocalStore(path: path)
            await #expect(throws: StoreError(.wrongLog, "")) { try await reopened.view.claimSource("etcd:1a2b/herald/") }
            try await reopened.view.claimSource("local")
            try await reopened.close()
        }
        try await withTemporaryDirectory { path in
            // One from before sources were recorded with nothing in its own log followed etcd.
            let store = try LocalStore(path: path)
            try await store.view.apply(entries(0..<10))
            await #expect(throws: StoreError(.wrongLog, "")) { try await store.view.claimSource("local") }
            try await store.view.claimSource("etcd:1a2b/herald/")
            try await store.close()
        }
        try await withTemporaryDirectory { path in
            // An empty view may change logs, having applied nothing; once it has, it may not.
            let store = try LocalStore(path: path)
            try await store.view.claimSource("etcd:1a2b/herald/")
            try await store.view.claimSource("local")
            try await store.view.apply(entries(0..<1))
            await #expect(throws: StoreError(.wrongLog, "")) { try await store.view.claimSource("etcd:1a2b/herald/") }
            try await store.close()
        }
    }

    @Test func entriesAtOrBelowTheAppliedPositionAreNotAppliedTwice() async throws {
        try await withTemporaryDirectory { path in
            let store = try LocalStore(path: path)
            let key = SyntheticCommands.key(subject: 1, installation: 0)
            let device = Device(platform: .apns, token: "aa")
            try await store.view.apply([
                LogEntry(position: 1, command: .register(Registration(key: key, version: 5, device: device))),
                LogEntry(position: 2, command: .unregister(key, version: 6)),
            ])
            // By the version rule alone this would apply (8 > 6); only its position stops it.
            let replayed = LogEntry(position: 2, command: .register(Registration(key: key, version: 8, device: device)))
            try await store.view.apply([replayed])
            #expect(try store.view.record(for: key) == RegistryRecord(version: 6, registration: nil))
            #expect(try store.view.appliedPosition() == 2)
            try await store.close()
        }
    }

    @Test func appliedPositionSurvivesARestartAndResumes() async throws {
        try await withTemporaryDirectory { path in
            do {
                let store = try LocalStore(path: path)
                try await store.log.append(stream.commands(0..<1_000))
                try await store.view.apply(try await store.log.entries(from: 1, limit: 400))
                try await store.close()
            }
            let store = try LocalStore(path: path)
            #expect(try store.view.appliedPosition() == 400)
            try await store.follower(logger: Logger(label: "test")).catchUp()
            #expect(try store.view.appliedPosition() == 1_000)
            let reference = InMemoryRegistryView()
            reference.apply(entries(0..<1_000))
            #expect(try store.view.allRecords() == reference.allRecords())
            try await store.close()
        }
    }

    @Test func subjectScanDoesNotReachIntoANeighbour() async throws {
        try await withTemporaryDirectory { path in
            let store = try LocalStore(path: path)
            let device = Device(platform: .apns, token: "aa")
            let short = try RegistrationKey(scope: .first, subject: [1, 2], installationID: "a")
            let long = try RegistrationKey(scope: .first, subject: [1, 2, 3], installationID: "a")
            let otherScope = try RegistrationKey(scope: .second, subject: [1, 2], installationID: "b")
            let second = try RegistrationKey(scope: .first, subject: [1, 2], installationID: "b")
            try await store.view.apply(
                [short, long, otherScope, second].enumerated().map { index, key in
                    LogEntry(position: LogPosition(index + 1), command: .register(Registration(key: key, version: 1, device: device)))
                }
            )
            let found = try store.view.registrations(scope: .first, subject: [1, 2])
            #expect(found.map(\.key) == [short, second])
            try await store.close()
        }
    }

    @Test func submitReturnsOnceTheViewHasApplied() async throws {
        try await withTemporaryDirectory { path in
            let store = try LocalStore(path: path)
            let registry = Registry(log: store.log, view: store.view)
            let follower = Task { try await store.follower(logger: Logger(label: "test")).run() }
            let key = SyntheticCommands.key(subject: 9, installation: 1)
            let registration = Registration(key: key, version: 1, device: Device(platform: .fcm, token: "t"))
            try await registry.submit(.register(registration))
            #expect(try registry.record(for: key)?.registration == registration)
            try await registry.submit(.disableToken(key, token: "t", reason: "UNREGISTERED"))
            #expect(try registry.record(for: key)?.registration?.enabled == false)
            follower.cancel()
            _ = try? await follower.value
            try await store.close()
        }
    }
}
