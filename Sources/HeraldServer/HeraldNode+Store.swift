import HeraldConfig
import HeraldStore
import Logging

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

    /// Opens the journal of accepted work in `<store.path>/queue`, sealed like the store, unless
    /// `delivery.journal` is off.
    static func openJournal(_ configuration: HeraldConfiguration, store: LocalStore, logger: Logger) throws -> LMDBWorkJournal? {
        guard configuration.delivery.journal else { return nil }
        do {
            return try LMDBWorkJournal(storePath: configuration.store.path, durable: configuration.store.environment.durable, cipher: store.cipher, logger: logger)
        } catch {
            throw ConfigurationError(.invalidValue, "configuration key delivery.journal: cannot open the queue journal in \(configuration.store.path)/\(LMDBWorkJournal.directoryName): \(error)")
        }
    }
}
