import HeraldConfig
import HeraldStore

extension HeraldNode {
    /// Opens the store at `store.path`, sealed with its key ring. A store that cannot be opened
    /// stops start-up like any other configuration mistake, naming the key.
    static func openStore(_ configuration: HeraldConfiguration) throws -> LocalStore {
        let cipher = try configuration.storeCipher().cipher
        do {
            return try LocalStore(path: configuration.store.path, configuration: configuration.store.environment, cipher: cipher)
        } catch {
            throw ConfigurationError(.invalidValue, "configuration key store.path: cannot open the store at \(configuration.store.path): \(error)")
        }
    }
}
