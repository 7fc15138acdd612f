import HeraldCore

extension Array where Element == LogEntry {
    /// Applies the entries above `applied`, in order, through `read` and `write`, and returns the
    /// new applied position. The one apply loop every view runs, so views cannot drift apart.
    func apply(
        after applied: LogPosition,
        read: (RegistrationKey) throws -> RegistryRecord?,
        write: (RegistrationKey, RegistryRecord) throws -> Void
    ) rethrows -> LogPosition {
        var applied = applied
        for entry in self where entry.position > applied {
            let key = entry.command.key
            if case .store(let record) = entry.command.effect(on: try read(key)) {
                try write(key, record)
            }
            applied = entry.position
        }
        return applied
    }
}
