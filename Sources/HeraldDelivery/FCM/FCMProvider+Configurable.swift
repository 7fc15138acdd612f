import Foundation
import HeraldConfig
public import HeraldCore

extension FCMProvider: ConfigurablePushProvider, PooledProvider {
    public var name: String { "fcm" }
    public var platform: Platform { .fcm }

    /// Reads the service account the section names, so a missing or malformed one stops start-up
    /// naming its key.
    public static func make(app id: String, configuration fcm: FCMAppConfiguration, context: ProviderContext) throws -> FCMProvider {
        let key = "apps.\(id).fcm.service-account-file"
        let file = fcm.serviceAccountFile ?? ""
        let serviceAccount: FCMServiceAccount
        do {
            serviceAccount = try FCMServiceAccount(json: Data(try ConfigurationFile.read(file, key: key).utf8))
        } catch let error as FCMServiceAccountError {
            throw ConfigurationError(.invalidValue, "configuration key \(key): \(file): \(error.message)")
        }
        let trustRoots = try fcm.caFile.map { [try ConfigurationFile.read($0, key: "apps.\(id).fcm.ca-file")] }
        let tokens: FCMTokenManager
        let metrics = context.metrics
        do {
            tokens = try FCMTokenManager(
                serviceAccount: serviceAccount,
                trustRootsPEM: trustRoots,
                group: context.group,
                clock: context.clock,
                onMint: { metrics.recordTokenRefresh(provider: "fcm", app: id) }
            )
        } catch {
            throw ConfigurationError(
                .invalidValue,
                "configuration key \(key) or apps.\(id).fcm.ca-file: \(file): private_key is not an RSA key of 2048 bits or more, or the CA file is not PEM (\(error))"
            )
        }
        var configuration = FCMProvider.Configuration(
            projectID: fcm.projectID ?? serviceAccount.projectID,
            host: fcm.effectiveHost,
            port: fcm.port,
            trustRootsPEM: trustRoots
        )
        if let host = fcm.host, ConfigurationValueParsing.isLoopback(host) {
            configuration.authority = "localhost"
        }
        configuration.connections = fcm.connections
        configuration.codec = context.http2Codec
        return FCMProvider(configuration: configuration, tokens: tokens, group: context.group, logger: context.logger, clock: context.clock)
    }
}
