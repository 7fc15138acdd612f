import HeraldCore
#if canImport(Glibc)
import Glibc
#endif
import HeraldConfig
import NIOCore
import ServiceLifecycle

/// A listener whose failure to bind names the configuration keys of its address, so that a port
/// in use stops start-up like any other configuration mistake (exit 78) instead of a bare errno.
struct ListenerService: Service, DescribedByName {
    let listener: any Service
    let keys: String
    let address: String

    func run() async throws {
        do {
            try await self.listener.run()
        } catch {
            throw Self.configurationError(error, keys: self.keys, address: self.address) ?? error
        }
    }

    /// `nil` unless `error` is a failure to bind, which NIO's `IOError` names by its call: the
    /// same errnos from an outgoing connection are not a listener's.
    static func configurationError(_ error: any Error, keys: String, address: String) -> ConfigurationError? {
        guard let error = error as? IOError, [EADDRINUSE, EADDRNOTAVAIL, EACCES].contains(error.errnoCode),
            String(describing: error).hasPrefix("bind(")
        else { return nil }
        return ConfigurationError(.invalidValue, "configuration keys \(keys): cannot listen on \(address): \(String(cString: strerror(error.errnoCode)))")
    }
}
