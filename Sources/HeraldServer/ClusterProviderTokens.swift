import Foundation
import HeraldCluster
import HeraldDelivery
import HeraldStore

/// Provider tokens shared through the cluster backend's shared values, sealed under the store's
/// key ring like everything else a node puts there, so etcd's data holds no usable token.
struct ClusterProviderTokens: SharedProviderTokens {
    let values: any SharedValues
    let cipher: StoreCipher?

    static func context(_ name: String) -> [UInt8] { Array("shared:".utf8) + Array(name.utf8) }

    func read(_ name: String) async throws -> (token: SharedProviderToken?, version: Int64) {
        let (value, version) = try await self.values.read(name)
        guard let value else { return (nil, version) }
        let opened = try self.cipher.open(value, context: Self.context(name))
        return (try JSONDecoder().decode(SharedProviderToken.self, from: Data(opened)), version)
    }

    func store(_ token: SharedProviderToken, as name: String, ifVersion version: Int64) async throws -> Bool {
        let sealed = try self.cipher.seal(Array(try JSONEncoder().encode(token)), context: Self.context(name))
        return try await self.values.store(sealed, as: name, ifVersion: version)
    }
}
