public import HeraldStore

/// What keeping the shared log a window needs of the backend: each member says how far it has
/// applied (for as long as its lease lives), one member at a time holds the trimmer's role, and
/// the trimmer deletes what every live member has applied, past a retention.
public protocol LogWindowBackend: Sendable {
    /// Records that `member` has applied the log up to `position`, under its member lease: a
    /// member whose lease ended no longer holds the window open.
    func publishApplied(_ position: LogPosition, member: String, lease: MemberLease) async throws

    /// How far each live member has applied, as it last said.
    func appliedPositions() async throws -> [String: LogPosition]

    /// Takes the trimmer's role for `member` under its lease, or keeps it; `false` while another
    /// live member holds it.
    func claimTrimmer(member: String, lease: MemberLease) async throws -> Bool

    /// The position through which entries may be gone: 0 while nothing was trimmed. Only grows.
    func trimPoint() async throws -> LogPosition

    /// Raises the trim point to `position` (recorded before anything is deleted, so a reader
    /// that finds an entry missing can tell why), then deletes up to about `limit` entries at or
    /// below it. Returns how many it deleted: 0 once none is left.
    func trim(through position: LogPosition, limit: Int) async throws -> Int

    /// Lets the backend drop its own history up to `position` (etcd's compaction): nothing
    /// reads the log at or below the trim point any more.
    func compact(through position: LogPosition) async throws
}
