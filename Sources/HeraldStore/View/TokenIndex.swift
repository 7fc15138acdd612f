import Crypto
import HeraldCore

/// Registrations by device token, within a scope: the view keeps one index entry per live,
/// enabled registration (a disabled one pushes to nothing), written in the transaction that
/// applies it, so a front door can find which
/// registrations hold a token (to keep one registration per device token) without scanning. Entry key: scope ‖ 16 bytes of SHA-256(app ‖ 0 ‖ token) ‖ the registration's key.
enum TokenIndex {
    static let hashLength = 16

    static func prefix(scope: RegistrationScope, app: String?, token: String) -> [UInt8] {
        let hash = SHA256.hash(data: Array((app ?? "").utf8) + [0] + Array(token.utf8))
        return [scope.rawValue] + Array(hash.prefix(Self.hashLength))
    }

    static func entry(_ registration: Registration) -> [UInt8] {
        Self.prefix(scope: registration.key.scope, app: registration.device.app, token: registration.device.token)
            + registration.key.storeKeyBytes
    }

    /// Keeps the index in step with one record replaced by another, in `txn`.
    static func update(
        from old: Registration?,
        to new: Registration?,
        in database: LMDBDatabase,
        txn: borrowing LMDBWriteTransaction
    ) throws {
        let kept = new.flatMap { $0.enabled ? $0 : nil }
        if let old, old.enabled, old.device.token != kept?.device.token || old.device.app != kept?.device.app {
            _ = try txn.delete(in: database, key: Self.entry(old))
        }
        if let kept { try txn.put([1], in: database, key: Self.entry(kept)) }
    }
}
