import HeraldCore
public import Logging

/// A node's LMDB store: one environment holding the view and, when the node runs alone, the
/// command log too.
public final class LocalStore: Sendable {
    enum DatabaseName {
        static let log = "log"
        static let records = "registry"
        static let meta = "meta"
        static let markers = "markers"
        static let tokens = "tokens"
        /// The records as of the log's base position: what the trimmed entries amounted to.
        static let logBase = "log-base"
        static let all = [log, records, meta, markers, tokens, logBase]
    }

    public let environment: LMDBEnvironment
    public let writer: StoreWriter
    public let log: LMDBCommandLog
    public let view: LMDBRegistryView
    public let markers: MessageMarkers

    /// The key ring sealing registrations and log entries; `nil` when they are kept as they are.
    public let cipher: StoreCipher?

    public init(path: String, configuration: LMDBEnvironment.Configuration = .init(), cipher: StoreCipher? = nil) throws {
        self.cipher = cipher
        let environment = try LMDBEnvironment(path: path, databases: DatabaseName.all, configuration: configuration)
        let writer = StoreWriter(environment: environment)
        self.environment = environment
        self.writer = writer
        self.log = try LMDBCommandLog(writer: writer, database: environment.database(DatabaseName.log), meta: environment.database(DatabaseName.meta), cipher: cipher)
        self.view = try LMDBRegistryView(
            writer: writer,
            records: environment.database(DatabaseName.records),
            meta: environment.database(DatabaseName.meta),
            localLog: environment.database(DatabaseName.log),
            tokens: environment.database(DatabaseName.tokens),
            cipher: cipher
        )
        self.markers = try MessageMarkers(writer: writer, database: environment.database(DatabaseName.markers), cipher: cipher)
    }

    /// The follower that keeps `view` applied up to `log`.
    public func follower(logger: Logger) -> LogFollower {
        LogFollower(log: self.log, view: self.view, logger: logger)
    }

    public func close() async throws {
        try await self.writer.close()
    }
}
