import HeraldTesting
import Testing

@testable import HeraldStore

@Suite struct LMDBEnvironmentTests {
    @Test func putGetDeleteAndCursorOrder() async throws {
        try await withTemporaryDirectory { path in
            let environment = try LMDBEnvironment(path: path, databases: ["t"])
            let writer = StoreWriter(environment: environment)
            let table = Table<UInt64, UInt64>(try environment.database("t"))
            try await writer.write { txn in
                for key: UInt64 in [300, 2, 70_000, 1] { try table.put(key * 10, for: key, in: txn) }
                try table.delete(2, in: txn)
            }
            let (value, missing, order, last) = try environment.read { txn in
                var order: [UInt64] = []
                try table.forEach(in: txn) { key, _ in
                    order.append(key)
                    return true
                }
                return (try table.get(300, in: txn), try table.get(2, in: txn), order, try table.lastKey(in: txn))
            }
            #expect(value == 3000)
            #expect(missing == nil)
            #expect(order == [1, 300, 70_000])
            #expect(last == 70_000)
            try await writer.close()
        }
    }

    @Test func failedWriteLeavesNothingBehind() async throws {
        struct Abort: Error {}
        try await withTemporaryDirectory { path in
            let environment = try LMDBEnvironment(path: path, databases: ["t"])
            let writer = StoreWriter(environment: environment)
            let table = Table<UInt64, UInt64>(try environment.database("t"))
            await #expect(throws: Abort.self) {
                try await writer.write { txn in
                    try table.put(1, for: 1, in: txn)
                    throw Abort()
                }
            }
            #expect(try environment.read { txn in try table.count(in: txn) } == 0)
            try await writer.close()
        }
    }

    @Test func fullMapGrowsUntilItsMaximum() async throws {
        try await withTemporaryDirectory { path in
            let configuration = LMDBEnvironment.Configuration(mapSize: 256 * 1024, maxMapSize: 4 * 1024 * 1024)
            let environment = try LMDBEnvironment(path: path, databases: ["t"], configuration: configuration)
            let writer = StoreWriter(environment: environment)
            let database = try environment.database("t")
            let value = [UInt8](repeating: 7, count: 1024)
            // 1 MiB of values cannot fit in the first 256 KiB map.
            for start in stride(from: 0, to: 1024, by: 64) {
                try await writer.write { txn in
                    for key in start..<start + 64 { try txn.put(value, in: database, key: UInt64(key).storeKeyBytes) }
                }
            }
            #expect(environment.mapSize > configuration.mapSize)
            #expect(environment.mapSize <= configuration.maxMapSize)
            #expect(try environment.read { txn in try txn.count(of: database) } == 1024)
            try await writer.close()
        }
    }

    @Test func mapAtItsMaximumReportsFullAndStaysUsable() async throws {
        try await withTemporaryDirectory { path in
            let configuration = LMDBEnvironment.Configuration(mapSize: 256 * 1024, maxMapSize: 256 * 1024)
            let environment = try LMDBEnvironment(path: path, databases: ["t"], configuration: configuration)
            let writer = StoreWriter(environment: environment)
            let database = try environment.database("t")
            try await writer.write { txn in try txn.put([1], in: database, key: [0]) }
            let big = [UInt8](repeating: 7, count: 1024 * 1024)
            await #expect(throws: StoreError(.full, "")) {
                try await writer.write { txn in try txn.put(big, in: database, key: [1]) }
            }
            // The failed transaction left no trace and small writes still succeed.
            try await writer.write { txn in try txn.put([2], in: database, key: [2]) }
            let values = try environment.read { txn in
                (try txn.value(in: database, key: [0]), try txn.value(in: database, key: [1]), try txn.value(in: database, key: [2]))
            }
            #expect(values.0 == [1])
            #expect(values.1 == nil)
            #expect(values.2 == [2])
            try await writer.close()
        }
    }

    @Test func oversizedKeyIsAnErrorNotACrash() async throws {
        try await withTemporaryDirectory { path in
            let environment = try LMDBEnvironment(path: path, databases: ["t"])
            let writer = StoreWriter(environment: environment)
            let database = try environment.database("t")
            await #expect(throws: StoreError(.tooLarge, "")) {
                try await writer.write { txn in try txn.put([1], in: database, key: [UInt8](repeating: 1, count: 4096)) }
            }
            try await writer.close()
        }
    }

    @Test func readsRunWhileTheMapGrows() async throws {
        try await withTemporaryDirectory { path in
            let configuration = LMDBEnvironment.Configuration(mapSize: 128 * 1024, maxMapSize: 64 * 1024 * 1024)
            let environment = try LMDBEnvironment(path: path, databases: ["t"], configuration: configuration)
            let writer = StoreWriter(environment: environment)
            let table = Table<UInt64, UInt64>(try environment.database("t"))
            try await withThrowingTaskGroup(of: Int.self) { group in
                group.addTask {
                    for batch in 0..<200 {
                        try await writer.write { txn in
                            for key in 0..<100 { try table.put(UInt64(batch), for: UInt64(batch * 100 + key), in: txn) }
                        }
                    }
                    return 0
                }
                for _ in 0..<2 {
                    group.addTask {
                        var reads = 0
                        for _ in 0..<2_000 {
                            let count = try environment.read { txn in try table.count(in: txn) }
                            if count > 0 { reads += 1 }
                        }
                        return reads
                    }
                }
                for try await _ in group {}
            }
            #expect(try environment.read { txn in try table.count(in: txn) } == 20_000)
            #expect(environment.mapSize > configuration.mapSize)
            try await writer.close()
        }
    }

    @Test func closedStoreRefusesReadsAndWrites() async throws {
        try await withTemporaryDirectory { path in
            let environment = try LMDBEnvironment(path: path, databases: ["t"])
            let writer = StoreWriter(environment: environment)
            try await writer.close()
            #expect(throws: StoreError(.closed, "")) { try environment.read { txn in try txn.count(of: try environment.database("t")) } }
            await #expect(throws: StoreError(.closed, "")) { try await writer.write { _ in 0 } }
            #expect(throws: StoreError(.closed, "")) { try environment.usedBytes() }
        }
    }

    @Test func secondOpenOfAnOpenStoreIsRefused() async throws {
        try await withTemporaryDirectory { path in
            let first = try LMDBEnvironment(path: path, databases: ["t"])
            #expect(throws: StoreError(.locked, "")) { try LMDBEnvironment(path: path, databases: ["t"]) }
            first.close()
            // A child process another test is spawning holds a copy of every descriptor, the
            // lock's too, from its fork until its exec closes them (O_CLOEXEC): bounded retries.
            var again: LMDBEnvironment?
            try await waitUntil("the closed store opens again") {
                do {
                    again = try LMDBEnvironment(path: path, databases: ["t"])
                    return true
                } catch let error as StoreError where error.code == .locked {
                    return false
                }
            }
            again?.close()
        }
    }

    @Test func grownMapKeepsItsSizeAcrossARestart() async throws {
        try await withTemporaryDirectory { path in
            let configuration = LMDBEnvironment.Configuration(mapSize: 256 * 1024, maxMapSize: 16 * 1024 * 1024)
            let grownTo: Int
            do {
                let environment = try LMDBEnvironment(path: path, databases: ["t"], configuration: configuration)
                let writer = StoreWriter(environment: environment)
                let database = try environment.database("t")
                try await writer.write { txn in
                    for key in 0..<512 { try txn.put([UInt8](repeating: 1, count: 1024), in: database, key: UInt64(key).storeKeyBytes) }
                }
                grownTo = environment.mapSize
                try await writer.close()
            }
            #expect(grownTo > configuration.mapSize)
            let reopened = try LMDBEnvironment(path: path, databases: ["t"], configuration: configuration)
            #expect(reopened.mapSize >= grownTo)
            reopened.close()
        }
    }
}
