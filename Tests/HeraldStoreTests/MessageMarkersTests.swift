import HeraldStore
import HeraldTesting
import Testing

@Suite struct MessageMarkersTests {
    /// Concurrent inserts share transactions; of many inserts of one id exactly one wins.
    @Test func concurrentInsertsOfOneIdAdmitOne() async throws {
        try await withTemporaryDirectory { path in
            let store = try LocalStore(path: path)
            let results = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<200 {
                    let id: [UInt8] = index % 2 == 0 ? [7, 7, 7] : [UInt8(truncatingIfNeeded: index), 1]
                    group.addTask { try await store.markers.insert(id, in: .dedup, expiry: 2_000, now: 1_000) }
                }
                var results: [Bool] = []
                for try await result in group { results.append(result) }
                return results
            }
            // 100 distinct odd ids each win once, the shared even id once.
            #expect(results.filter { $0 }.count == 101)
            #expect(try store.markers.contains([7, 7, 7], in: .dedup, now: 1_500))
            #expect(try !store.markers.contains([7, 7, 7], in: .dedup, now: 2_000))
            try await store.close()
        }
    }

    /// An expired marker no longer blocks its id, and sweeping removes expired markers in batches.
    @Test func expiredMarkersAreReplacedAndSwept() async throws {
        try await withTemporaryDirectory { path in
            let store = try LocalStore(path: path)
            for index in 0..<600 {
                #expect(try await store.markers.insert([UInt8(index >> 8), UInt8(index & 0xFF)], in: .dedup, expiry: 100, now: 10))
            }
            #expect(try store.markers.count() == 600)
            #expect(try await store.markers.insert([0, 1], in: .dedup, expiry: 500, now: 200))
            // Each insert sweeps up to 256 keys from where the last sweep stopped.
            for index in 0..<3 {
                #expect(try await store.markers.insert([9, 9, UInt8(index)], in: .dedup, expiry: 500, now: 200))
            }
            #expect(try store.markers.count() < 600)
            #expect(try store.markers.contains([0, 1], in: .dedup, now: 300))
            try await store.close()
        }
    }
}
