/// A key and its value as etcd stores it.
public struct EtcdKeyValue: Sendable, Hashable {
    public var key: [UInt8]
    public var value: [UInt8]
    public var createRevision: Int64
    public var modRevision: Int64
    public var version: Int64
    public var lease: Int64

    init(_ wire: EtcdWire.KeyValue) {
        self.key = wire.key.value
        self.value = wire.value?.value ?? []
        self.createRevision = wire.create_revision?.value ?? 0
        self.modRevision = wire.mod_revision?.value ?? 0
        self.version = wire.version?.value ?? 0
        self.lease = wire.lease?.value ?? 0
    }
}

/// One condition of a transaction.
public struct EtcdCompare: Sendable, Hashable {
    public enum Target: Sendable, Hashable {
        /// The revision of the key's last change; 0 when it does not exist.
        case modRevision(Int64)
        /// The revision the key was created at; 0 when it does not exist.
        case createRevision(Int64)
        case value([UInt8])
    }

    public enum Result: String, Sendable, Hashable {
        case equal = "EQUAL"
        case notEqual = "NOT_EQUAL"
        case greater = "GREATER"
        case less = "LESS"
    }

    public var key: [UInt8]
    public var target: Target
    public var result: Result

    public init(key: [UInt8], _ target: Target, _ result: Result = .equal) {
        self.key = key
        self.target = target
        self.result = result
    }

    var wire: EtcdWire.Compare {
        var compare = EtcdWire.Compare(key: .init(self.key), result: self.result.rawValue, target: "MOD")
        switch self.target {
        case .modRevision(let revision):
            compare.target = "MOD"
            compare.mod_revision = .init(revision)
        case .createRevision(let revision):
            compare.target = "CREATE"
            compare.create_revision = .init(revision)
        case .value(let value):
            compare.target = "VALUE"
            compare.value = .init(value)
        }
        return compare
    }
}

/// One operation of a transaction branch.
public enum EtcdOperation: Sendable, Hashable {
    case put(key: [UInt8], value: [UInt8], lease: Int64? = nil)
    case range(key: [UInt8], rangeEnd: [UInt8]? = nil)
    case delete(key: [UInt8], rangeEnd: [UInt8]? = nil)

    var wire: EtcdWire.RequestOp {
        switch self {
        case .put(let key, let value, let lease):
            EtcdWire.RequestOp(request_put: .init(key: .init(key), value: .init(value), lease: lease.map(EtcdWire.Int64String.init)))
        case .range(let key, let rangeEnd):
            EtcdWire.RequestOp(request_range: .init(key: .init(key), range_end: rangeEnd.map(EtcdWire.Bytes.init)))
        case .delete(let key, let rangeEnd):
            EtcdWire.RequestOp(request_delete_range: .init(key: .init(key), range_end: rangeEnd.map(EtcdWire.Bytes.init)))
        }
    }
}

/// What a transaction did: which branch ran, the store's revision after it (the transaction's own
/// when it wrote), and the keys its range operations read, in order.
public struct EtcdTxnResult: Sendable, Hashable {
    public var succeeded: Bool
    public var revision: Int64
    public var ranges: [[EtcdKeyValue]]
}

/// Keys read at one revision of the store.
public struct EtcdRangeResult: Sendable, Hashable {
    public var keyValues: [EtcdKeyValue]
    /// More keys match beyond the limit.
    public var more: Bool
    /// The store's revision when it answered.
    public var revision: Int64
    /// The etcd cluster that answered: fixed when the cluster is made, new after a restore.
    public var clusterID: UInt64 = 0
}

/// One message of a watch: the events of one or more whole revisions, or a progress report
/// ("everything up to `revision` has been sent") with no events.
public struct EtcdWatchBatch: Sendable, Hashable {
    public struct Event: Sendable, Hashable {
        public var isDelete: Bool
        public var keyValue: EtcdKeyValue
    }

    public var revision: Int64
    public var events: [Event]
}
