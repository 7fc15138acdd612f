public import HeraldCore

/// The registry as materialised from the command log, answering lookups locally.
///
/// `apply` takes entries in log order and records the last applied position together with their
/// effects, atomically, so a view never holds half a batch and never applies an entry twice.
public protocol RegistryView: Sendable {
    /// Position of the last applied entry; 0 before the first.
    func appliedPosition() throws -> LogPosition

    /// Applies entries in order; entries at or below the applied position are skipped.
    func apply(_ entries: [LogEntry]) async throws

    /// The stored record, including the version of an unregistered key.
    func record(for key: RegistrationKey) throws -> RegistryRecord?

    /// Live registrations (not unregistered) of every installation of `subject`.
    func registrations(scope: RegistrationScope, subject: [UInt8]) throws -> [Registration]

    /// Calls `body` once per subject of `scope` with at least one live registration, in key
    /// order; for rebuilding per-subject state at start, not for request paths.
    func forEachSubject(scope: RegistrationScope, _ body: ([UInt8]) throws -> Void) throws

    /// Keys of the live, enabled registrations of `scope` whose device has `token` for `app`.
    func keys(holdingToken token: String, app: String?, scope: RegistrationScope) throws -> [RegistrationKey]

    /// Up to `limit` live registrations whose stored key starts with `keyPrefix`, in key order
    /// after `cursor` (a stored key from an earlier call), and the stored key to continue after
    /// (`nil` when none was read). For walks over many registrations in bounded steps.
    func registrations(keyPrefix: [UInt8], after cursor: [UInt8]?, limit: Int) throws -> (registrations: [Registration], next: [UInt8]?)

    /// Number of stored records, unregistered ones included.
    func recordCount() throws -> Int

    /// Records which log the view is built from (`CommandLog.source()`), or throws
    /// `StoreError.wrongLog` when it was built from another: positions of one log mean nothing in
    /// another, so applying or fencing against them would skip or overwrite commands.
    func claimSource(_ source: String) async throws

    /// Returns once `claimSource` has succeeded; writers wait for it.
    func waitForSourceClaim() async throws

    /// A fingerprint of the whole view at one instant. Reads every record: for operators and
    /// tests comparing nodes, not for request paths.
    func digest() throws -> RegistryDigest

    /// Returns once the applied position is beyond `position`.
    func waitForApplied(beyond position: LogPosition) async throws -> LogPosition

    /// Calls `observer` with every batch of entries once it is applied, before waiters on the
    /// applied position wake.
    func onApplied(_ observer: @escaping @Sendable ([LogEntry]) -> Void)
}
