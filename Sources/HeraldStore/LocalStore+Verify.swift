import HeraldCore

/// What `LocalStore.verify()` found: the log is contiguous from its base and decodes, and the
/// view equals the base replayed forward by the log up to the view's applied position.
public struct StoreVerification: Sendable, CustomStringConvertible {
    /// Where the log begins: the entries through it were folded into the base.
    public var logBase: LogPosition = 0
    public var logHead: LogPosition
    public var appliedPosition: LogPosition
    public var records: Int
    public var problems: [String]

    public var isConsistent: Bool { self.problems.isEmpty }

    public var description: String {
        let summary = "log base \(self.logBase), log head \(self.logHead), view applied \(self.appliedPosition), \(self.records) records"
        return self.problems.isEmpty ? "consistent: \(summary)" : "INCONSISTENT: \(summary)\n" + self.problems.joined(separator: "\n")
    }
}

extension LocalStore {
    /// Reads the whole log, checks it is contiguous from its base to its head and decodes, and
    /// compares the LMDB view with the base records replayed forward by the log up to the view's
    /// applied position. Reads everything: a tool for tests and operators, not for a serving
    /// node's hot path.
    public func verify(batchSize: Int = 4096) async throws -> StoreVerification {
        var problems: [String] = []
        let applied = try self.view.appliedPosition()
        let head = try await self.log.head()
        if applied > head {
            problems.append("view applied position \(applied) is beyond the log head \(head)")
        }
        let base = try self.logBasePosition()
        if applied < base {
            problems.append("view applied position \(applied) is below the log's base \(base)")
        }
        let reference = InMemoryRegistryView(records: try self.logBaseRecords(), applied: base)
        var next: LogPosition = base + 1
        scan: while next <= head {
            let batch = try await self.log.entries(from: next, limit: batchSize)
            guard let last = batch.last else {
                problems.append("log ends at \(next - 1), before its head \(head)")
                break
            }
            for (offset, entry) in batch.enumerated() where entry.position != next + LogPosition(offset) {
                problems.append("log gap: expected position \(next + LogPosition(offset)), found \(entry.position)")
                break scan
            }
            reference.apply(batch.filter { $0.position <= applied })
            next = last.position + 1
        }
        let actual = try self.view.allRecords()
        let expected = reference.allRecords()
        if actual != expected {
            let missing = expected.keys.filter { actual[$0] == nil }.count
            let extra = actual.keys.filter { expected[$0] == nil }.count
            let differing = expected.filter { key, record in actual[key].map { $0 != record } ?? false }.count
            problems.append("view differs from the replayed log: \(missing) missing, \(extra) extra, \(differing) differing records")
        }
        return StoreVerification(logBase: base, logHead: head, appliedPosition: applied, records: actual.count, problems: problems)
    }
}
