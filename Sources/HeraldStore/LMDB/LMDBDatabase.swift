import CLMDB

/// A named database inside an LMDB environment, opened once when the environment opens.
public struct LMDBDatabase: Sendable, Hashable {
    public let name: String
    let handle: MDB_dbi
}
