import Foundation
import HeraldConfig
public import HeraldCore
import Logging

extension WebPushProvider: ConfigurablePushProvider {
    public var name: String { "webpush" }
    public var platform: Platform { .webPush }

    /// Pushes admitted and not yet finished.
    public var queueDepth: Int { get async { self.pushesUnderWay } }

    /// AsyncHTTPClient does not tell its connections: the push service hosts with a client stand
    /// for them.
    public var openConnections: Int { get async { await self.hostsConnected } }

    /// Reads the VAPID key the section names, so a missing or malformed one stops start-up
    /// naming its key.
    public static func make(app id: String, configuration section: WebPushAppConfiguration, context: ProviderContext) throws -> WebPushProvider {
        let key = "apps.\(id).webpush.vapid-key-file"
        let file = section.vapidKeyFile ?? ""
        guard let vapidKey = VAPIDSigner.key(fileContents: try ConfigurationFile.read(file, key: key)) else {
            throw ConfigurationError(.invalidValue, "configuration key \(key): \(file) holds no P-256 private key (PEM, or the 32-byte key in base64url)")
        }
        let trustRoots = try section.caFile.map { [try ConfigurationFile.read($0, key: "apps.\(id).webpush.ca-file")] }
        var configuration = WebPushProvider.Configuration(
            endpoints: WebPushEndpointPolicy(allowedEndpoints: section.allowedEndpoints, allowedAddresses: section.allowedAddresses)
        )
        configuration.defaultTTL = section.ttl
        configuration.trustRootsPEM = trustRoots
        configuration.connectionsPerHost = section.connectionsPerHost
        configuration.hosts = section.hosts
        let vapid: VAPIDSigner
        do {
            vapid = try VAPIDSigner(key: vapidKey, subject: section.vapidSubject ?? "")
        } catch {
            throw ConfigurationError(.invalidValue, "configuration key \(key): \(file): the key cannot sign ES256 (\(error))")
        }
        // What web apps subscribe with (`applicationServerKey`): the operator needs it, and it is public.
        context.logger.notice("Web Push VAPID public key", metadata: ["app": "\(id)", "applicationServerKey": "\(vapid.publicKey)"])
        do {
            return try WebPushProvider(configuration: configuration, vapid: vapid, group: context.group, logger: context.logger, clock: context.clock)
        } catch {
            throw ConfigurationError(.invalidValue, "configuration key apps.\(id).webpush.ca-file: not PEM certificates (\(error))")
        }
    }
}
