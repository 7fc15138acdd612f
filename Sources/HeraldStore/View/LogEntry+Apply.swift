import HeraldCore

extension Array where Element == LogEntry {
    /// Applies the entries above `applied`, in order, through `read` and `write`, and returns the
    /// new applied position. The one apply loop every view runs, so views cannot drift apart.
    ///
    /// Several entries may share a position (the commands of one etcd transaction share its
    /// revision); a batch holds a position's entries whole, so all of them apply.
    func apply(
        after applied: LogPosition,
        read: (RegistrationKey) throws -> RegistryRecord?,
        write: (RegistrationKey, RegistryRecord) throws -> Void
    ) rethrows -> LogPosition {
        let start = applied
        var applied = applied
        for entry in self where entry.position > start {
            let key = entry.command.key
            if case .store(let record) = entry.command.effect(on: try read(key)) {
                try write(key, record)
            }
            applied = Swift.max(applied, entry.position)
        }
        return applied
    }
}
