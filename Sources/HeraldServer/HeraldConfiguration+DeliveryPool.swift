import Foundation
import HeraldCore
import HeraldDelivery
import Logging
import NIOCore

extension HeraldConfiguration {
    /// The delivery pool of the configured apps; `nil` when no app is configured. Reads each
    /// app's key file, so a missing or malformed key stops start-up naming the key.
    func makeDeliveryPool(
        group: any EventLoopGroup,
        metrics: DeliveryMetrics,
        deadTokenHandlers: [any DeadTokenHandler],
        logger: Logger
    ) throws -> DeliveryPool? {
        guard !self.apps.isEmpty else { return nil }
        var apps: [DeliveryPool.App] = []
        for (id, app) in self.apps.sorted(by: { $0.key < $1.key }) {
            var endpoint: APNSEndpoint?
            if let apns = app.apns, let keyFile = apns.keyFile, let keyID = apns.keyID, let teamID = apns.teamID {
                let pem: String
                do {
                    pem = try String(contentsOfFile: keyFile, encoding: .utf8)
                } catch {
                    throw ConfigurationError(.invalidValue, "configuration key apps.\(id).apns.key-file: cannot read \(keyFile): \(error.localizedDescription)")
                }
                let tokens: APNSTokenManager
                do {
                    tokens = try APNSTokenManager(
                        credentials: .init(keyID: keyID, teamID: teamID, privateKeyPEM: pem),
                        onMint: { metrics.recordTokenRefresh(provider: "apns", app: id) }
                    )
                } catch {
                    throw ConfigurationError(.invalidValue, "configuration key apps.\(id).apns.key-file: \(keyFile) is not a P-256 .p8 key")
                }
                var trustRoots: [String]?
                if let caFile = apns.caFile {
                    do {
                        trustRoots = [try String(contentsOfFile: caFile, encoding: .utf8)]
                    } catch {
                        throw ConfigurationError(.invalidValue, "configuration key apps.\(id).apns.ca-file: cannot read \(caFile)")
                    }
                }
                var configuration = APNSEndpoint.Configuration(host: apns.effectiveHost, port: apns.port, trustRootsPEM: trustRoots)
                if let host = apns.host, ["127.0.0.1", "::1"].contains(host) {
                    // A loopback test peer's certificate names localhost: TLS verifies a name.
                    configuration.authority = "localhost"
                }
                configuration.connections = apns.connections
                configuration.defaultTopic = apns.topic
                endpoint = APNSEndpoint(configuration: configuration, tokens: tokens, group: group, logger: logger)
            }
            apps.append(DeliveryPool.App(id: id, apns: endpoint))
        }
        return DeliveryPool(apps: apps, defaultApp: self.delivery.defaultApp, metrics: metrics, deadTokenHandlers: deadTokenHandlers)
    }

    /// One line per app for the start-up log; never the key itself.
    public var appSummary: String {
        self.apps.sorted(by: { $0.key < $1.key }).map { id, app in
            guard let apns = app.apns else { return "\(id) (no provider)" }
            return "\(id) (APNs \(apns.environment.rawValue) at \(apns.effectiveHost):\(apns.port), key \(apns.keyID ?? "?"), team \(apns.teamID ?? "?"), topic \(apns.topic ?? "none"))"
        }.joined(separator: "; ")
    }
}
