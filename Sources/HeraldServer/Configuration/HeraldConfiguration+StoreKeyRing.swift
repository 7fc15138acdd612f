import Foundation
import HeraldConfig
import HeraldStore

extension HeraldConfiguration {
    /// The file a node alone keeps its key ring in when none is configured.
    static func defaultKeyFile(storePath: String) -> String {
        storePath + "/store.key"
    }

    /// The key ring sealing the store: `store.encryption-key`, `store.encryption-key-file`, or
    /// for a node alone `<store.path>/store.key`, created at first start. A cluster must be given
    /// one, the same on every node: each reads what the others append.
    func storeCipher() throws -> (cipher: StoreCipher, source: String) {
        if let text = self.store.encryptionKey {
            return (try Self.cipher(text, key: "store.encryption-key"), "store.encryption-key")
        }
        if let file = self.store.encryptionKeyFile {
            return (try Self.cipher(try ConfigurationFile.read(file, key: "store.encryption-key-file"), key: "store.encryption-key-file"), file)
        }
        guard !self.cluster.isEnabled else {
            throw ConfigurationError(
                .invalidValue,
                "configuration key store.encryption-key-file (or store.encryption-key) is required with cluster.etcd-endpoints: every node seals and opens the same log, so all need the same key"
            )
        }
        let file = Self.defaultKeyFile(storePath: self.store.path)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: self.store.path, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw ConfigurationError(.invalidValue, "configuration key store.path: cannot open the store at \(self.store.path): it is not a directory")
        }
        if !FileManager.default.fileExists(atPath: file) {
            do {
                try FileManager.default.createDirectory(atPath: self.store.path, withIntermediateDirectories: true)
            } catch {
                throw ConfigurationError(.invalidValue, "configuration key store.path: cannot create the directory \(self.store.path)")
            }
            do {
                try SecretFile.create(file, contents: Array(StoreCipher.newKeyText().utf8))
            } catch {
                throw ConfigurationError(.invalidValue, "configuration key store.path: cannot create the store key: \(error.description)")
            }
        }
        return (try Self.cipher(try ConfigurationFile.read(file, key: "store.encryption-key-file (default \(file))"), key: "store.encryption-key-file"), file)
    }

    static func cipher(_ text: String, key: String) throws -> StoreCipher {
        do {
            return try StoreCipher(text: text)
        } catch {
            throw ConfigurationError(.invalidValue, "configuration key \(key): \(error.message)")
        }
    }
}
