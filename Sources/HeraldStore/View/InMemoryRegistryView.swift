public import HeraldCore
import Synchronization

/// The registry view held in memory: the reference the LMDB view is checked against, and a fast
/// stand-in for front-door tests.
public final class InMemoryRegistryView: RegistryView {
    private struct State {
        var applied: LogPosition = 0
        var records: [RegistrationKey: RegistryRecord] = [:]
        var source: String?
    }

    private let state = Mutex(State())
    private let appliedSignal = PositionSignal(position: 0)
    private let sourceClaimed = PositionSignal(position: 0)
    private let observers = ApplyObservers()

    public init() {}

    /// A view that starts from `records`, as applied through `applied` (a trimmed log's base).
    public init(records: [RegistrationKey: RegistryRecord], applied: LogPosition) {
        self.state.withLock { state in
            state.records = records
            state.applied = applied
        }
        self.appliedSignal.advance(to: applied)
    }

    public func appliedPosition() -> LogPosition {
        self.state.withLock { $0.applied }
    }

    public func apply(_ entries: [LogEntry]) {
        let applied = self.state.withLock { state in
            state.applied = entries.apply(
                after: state.applied,
                read: { state.records[$0] },
                write: { state.records[$0] = $1 }
            )
            return state.applied
        }
        self.observers.notify(entries)
        self.appliedSignal.advance(to: applied)
    }

    public func onApplied(_ observer: @escaping @Sendable ([LogEntry]) -> Void) {
        self.observers.add(observer)
    }

    public func record(for key: RegistrationKey) -> RegistryRecord? {
        self.state.withLock { $0.records[key] }
    }

    public func registrations(scope: RegistrationScope, subject: [UInt8]) -> [Registration] {
        self.state.withLock { state in
            state.records
                .filter { $0.key.scope == scope && $0.key.subject == subject }
                .sorted { $0.key.installationID.utf8.lexicographicallyPrecedes($1.key.installationID.utf8) }
                .compactMap(\.value.registration)
        }
    }

    public func forEachSubject(scope: RegistrationScope, _ body: ([UInt8]) throws -> Void) throws {
        let subjects = self.state.withLock { state in
            Set(state.records.filter { $0.key.scope == scope && $0.value.registration != nil }.map(\.key.subject))
        }
        for subject in subjects.sorted(by: { $0.lexicographicallyPrecedes($1) }) { try body(subject) }
    }

    public func keys(holdingToken token: String, app: String?, scope: RegistrationScope) -> [RegistrationKey] {
        self.state.withLock { state in
            state.records.compactMap { key, record in
                guard key.scope == scope, let registration = record.registration, registration.enabled,
                    registration.device.token == token, registration.device.app == app
                else { return nil }
                return key
            }
        }
    }

    public func registrations(keyPrefix: [UInt8], after cursor: [UInt8]?, limit: Int) -> (registrations: [Registration], next: [UInt8]?) {
        let entries: [(key: [UInt8], registration: Registration?)] = self.state.withLock { state in
            state.records.map { (key: $0.key.storeKeyBytes, registration: $0.value.registration) }
        }
        let page = entries
            .filter { entry in entry.key.starts(with: keyPrefix) && (cursor.map { $0.lexicographicallyPrecedes(entry.key) } ?? true) }
            .sorted { $0.key.lexicographicallyPrecedes($1.key) }
            .prefix(limit)
        return (page.compactMap(\.registration), page.last?.key)
    }

    public func recordCount() -> Int {
        self.state.withLock { $0.records.count }
    }

    public func waitForApplied(beyond position: LogPosition) async throws -> LogPosition {
        try await self.appliedSignal.wait(beyond: position)
    }

    public func claimSource(_ source: String) throws {
        try self.state.withLock { state in
            if let claimed = state.source, claimed != source {
                throw StoreError(.wrongLog, "this view was built from \(claimed), not \(source)")
            }
            state.source = source
        }
        self.sourceClaimed.advance(to: 1)
    }

    public func waitForSourceClaim() async throws {
        _ = try await self.sourceClaimed.wait(beyond: 0)
    }

    public func digest() -> RegistryDigest {
        let (records, applied) = self.state.withLock { ($0.records, $0.applied) }
        var builder = RegistryDigest.Builder()
        for (key, bytes) in records.map({ ($0.key.storeKeyBytes, $0.value) }).sorted(by: { $0.0.lexicographicallyPrecedes($1.0) }) {
            builder.add(key: key, value: bytes.storedValue())
        }
        return builder.finish(appliedPosition: applied)
    }

    public func allRecords() -> [RegistrationKey: RegistryRecord] {
        self.state.withLock { $0.records }
    }
}
