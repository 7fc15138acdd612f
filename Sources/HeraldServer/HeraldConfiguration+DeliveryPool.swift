import Foundation
import HeraldCore
import HeraldDelivery
import Logging
import NIOCore

extension HeraldConfiguration {
    /// The delivery pool of the configured apps; `nil` when no app is configured. Reads each
    /// app's credential files, so a missing or malformed one stops start-up naming its key.
    func makeDeliveryPool(
        group: any EventLoopGroup,
        metrics: DeliveryMetrics,
        deadTokenHandlers: [any DeadTokenHandler],
        failureObservers: [any FailureObserver] = [],
        logger: Logger
    ) throws -> DeliveryPool? {
        guard !self.apps.isEmpty else { return nil }
        var apps: [DeliveryPool.App] = []
        for (id, app) in self.apps.sorted(by: { $0.key < $1.key }) {
            let apns = try app.apns.map { try Self.makeAPNSEndpoint(app: id, $0, group: group, metrics: metrics, logger: logger) }
            let fcm = try app.fcm.map { try Self.makeFCMEndpoint(app: id, $0, group: group, metrics: metrics, logger: logger) }
            apps.append(DeliveryPool.App(id: id, apns: apns, fcm: fcm))
        }
        return DeliveryPool(apps: apps, defaultApp: self.delivery.defaultApp, metrics: metrics, deadTokenHandlers: deadTokenHandlers, failureObservers: failureObservers)
    }

    private static func makeAPNSEndpoint(
        app id: String,
        _ apns: App.APNS,
        group: any EventLoopGroup,
        metrics: DeliveryMetrics,
        logger: Logger
    ) throws -> APNSEndpoint {
        var tokens: APNSTokenManager?
        var identity: TLSClientIdentity?
        if let keyFile = apns.keyFile, let keyID = apns.keyID, let teamID = apns.teamID {
            let pem = try Self.read(keyFile, key: "apps.\(id).apns.key-file")
            do {
                tokens = try APNSTokenManager(
                    credentials: .init(keyID: keyID, teamID: teamID, privateKeyPEM: pem),
                    onMint: { metrics.recordTokenRefresh(provider: "apns", app: id) }
                )
            } catch {
                throw ConfigurationError(.invalidValue, "configuration key apps.\(id).apns.key-file: \(keyFile) is not a P-256 .p8 key")
            }
        } else if let certificateFile = apns.certificateFile, let certificateKeyFile = apns.certificateKeyFile {
            let candidate = TLSClientIdentity(
                certificateChainPEM: try Self.read(certificateFile, key: "apps.\(id).apns.certificate-file"),
                privateKeyPEM: try Self.read(certificateKeyFile, key: "apps.\(id).apns.certificate-key-file")
            )
            do {
                try candidate.validate()
            } catch {
                throw ConfigurationError(
                    .invalidValue,
                    "configuration keys apps.\(id).apns.certificate-file and certificate-key-file: not a PEM certificate and private key (\(error))"
                )
            }
            identity = candidate
        }
        let trustRoots = try apns.caFile.map { [try Self.read($0, key: "apps.\(id).apns.ca-file")] }
        var configuration = APNSEndpoint.Configuration(host: apns.effectiveHost, port: apns.port, trustRootsPEM: trustRoots)
        if let host = apns.host, Self.isLoopback(host) {
            // A loopback test peer's certificate names localhost: TLS verifies a name.
            configuration.authority = "localhost"
        }
        configuration.connections = apns.connections
        configuration.clientIdentity = identity
        configuration.defaultTopic = apns.topic
        return APNSEndpoint(configuration: configuration, tokens: tokens, group: group, logger: logger)
    }

    private static func makeFCMEndpoint(
        app id: String,
        _ fcm: App.FCM,
        group: any EventLoopGroup,
        metrics: DeliveryMetrics,
        logger: Logger
    ) throws -> FCMEndpoint {
        let key = "apps.\(id).fcm.service-account-file"
        let file = fcm.serviceAccountFile ?? ""
        let serviceAccount: FCMServiceAccount
        do {
            serviceAccount = try FCMServiceAccount(json: Data(try Self.read(file, key: key).utf8))
        } catch let error as FCMServiceAccountError {
            throw ConfigurationError(.invalidValue, "configuration key \(key): \(file): \(error.message)")
        }
        let trustRoots = try fcm.caFile.map { [try Self.read($0, key: "apps.\(id).fcm.ca-file")] }
        let tokens: FCMTokenManager
        do {
            tokens = try FCMTokenManager(
                serviceAccount: serviceAccount,
                trustRootsPEM: trustRoots,
                group: group,
                onMint: { metrics.recordTokenRefresh(provider: "fcm", app: id) }
            )
        } catch {
            throw ConfigurationError(
                .invalidValue,
                "configuration key \(key) or apps.\(id).fcm.ca-file: \(file): private_key is not an RSA key of 2048 bits or more, or the CA file is not PEM (\(error))"
            )
        }
        var configuration = FCMEndpoint.Configuration(
            projectID: fcm.projectID ?? serviceAccount.projectID,
            host: fcm.effectiveHost,
            port: fcm.port,
            trustRootsPEM: trustRoots
        )
        if let host = fcm.host, Self.isLoopback(host) {
            configuration.authority = "localhost"
        }
        configuration.connections = fcm.connections
        return FCMEndpoint(configuration: configuration, tokens: tokens, group: group, logger: logger)
    }

    private static func read(_ path: String, key: String) throws -> String {
        do {
            return try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigurationError(.invalidValue, "configuration key \(key): cannot read \(path): \(error.localizedDescription)")
        }
    }

    /// One line per app for the start-up log; never a key itself.
    public var appSummary: String {
        self.apps.sorted(by: { $0.key < $1.key }).map { id, app in
            var parts: [String] = []
            if let apns = app.apns {
                let credential =
                    apns.certificateFile != nil
                    ? "certificate \(apns.certificateFile ?? "")" : "key \(apns.keyID ?? "?"), team \(apns.teamID ?? "?")"
                parts.append("APNs \(apns.environment.rawValue) at \(apns.effectiveHost):\(apns.port), \(credential), topic \(apns.topic ?? "none")")
            }
            if let fcm = app.fcm {
                parts.append("FCM at \(fcm.effectiveHost):\(fcm.port), service account \(fcm.serviceAccountFile ?? "?")")
            }
            return "\(id) (\(parts.joined(separator: "; ")))"
        }.joined(separator: "; ")
    }
}
