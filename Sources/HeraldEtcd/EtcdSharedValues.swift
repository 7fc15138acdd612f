public import HeraldCluster

/// Shared values on etcd: `<prefix>shared/<name>`, replaced in a transaction that compares the
/// key's mod revision (0 for a key that does not exist), which is the value's version.
public struct EtcdSharedValues: SharedValues {
    let client: EtcdClient
    let prefix: String

    public init(client: EtcdClient, prefix: String) {
        self.client = client
        self.prefix = prefix
    }

    func key(_ name: String) -> [UInt8] { Array((self.prefix + "shared/" + name).utf8) }

    public func read(_ name: String) async throws -> (value: [UInt8]?, version: Int64) {
        do {
            let answer = try await self.client.range(self.key(name))
            guard let stored = answer.keyValues.first else { return (nil, 0) }
            return (stored.value, stored.modRevision)
        } catch let error as EtcdError {
            throw EtcdCommandLog.storeError(error)
        }
    }

    public func store(_ value: [UInt8], as name: String, ifVersion version: Int64) async throws -> Bool {
        let key = self.key(name)
        do {
            return try await self.client.txn([EtcdCompare(key: key, .modRevision(version), .equal)], success: [.put(key: key, value: value)]).succeeded
        } catch let error as EtcdError {
            throw EtcdCommandLog.storeError(error)
        }
    }
}
