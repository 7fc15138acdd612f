import HeraldConfig
public import HeraldCore

extension APNSProvider: ConfigurablePushProvider, PooledProvider {
    public var name: String { "apns" }
    public var platform: Platform { .apns }
    public var apnsEnvironment: APNSAppConfiguration.Environment? { self.configuration.environment }

    /// Its topic, or its topic with a push-type suffix such as `.voip`.
    public func serves(topic: String) -> Bool {
        guard let own = self.configuration.defaultTopic else { return false }
        return topic == own || topic.hasPrefix(own + ".")
    }

    /// Reads the signing key or the client certificate the section names, so a missing or
    /// malformed one stops start-up naming its key.
    public static func make(app id: String, configuration apns: APNSAppConfiguration, context: ProviderContext) throws -> APNSProvider {
        var tokens: APNSTokenManager?
        var identity: TLSClientIdentity?
        if let keyFile = apns.keyFile, let keyID = apns.keyID, let teamID = apns.teamID {
            let pem = try ConfigurationFile.read(keyFile, key: "apps.\(id).apns.key-file")
            let metrics = context.metrics
            do {
                tokens = try APNSTokenManager(
                    credentials: .init(keyID: keyID, teamID: teamID, privateKeyPEM: pem),
                    clock: context.clock,
                    onMint: { metrics.recordTokenRefresh(provider: "apns", app: id) },
                    sharing: context.sharedTokens,
                    onSharedFallback: { metrics.recordSharedTokenFallback(provider: "apns", app: id) }
                )
            } catch {
                throw ConfigurationError(.invalidValue, "configuration key apps.\(id).apns.key-file: \(keyFile) is not a P-256 .p8 key")
            }
        } else if let certificateFile = apns.certificateFile, let certificateKeyFile = apns.certificateKeyFile {
            let candidate = TLSClientIdentity(
                certificateChainPEM: try ConfigurationFile.read(certificateFile, key: "apps.\(id).apns.certificate-file"),
                privateKeyPEM: try ConfigurationFile.read(certificateKeyFile, key: "apps.\(id).apns.certificate-key-file")
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
        let trustRoots = try apns.caFile.map { [try ConfigurationFile.read($0, key: "apps.\(id).apns.ca-file")] }
        var configuration = APNSProvider.Configuration(host: apns.effectiveHost, port: apns.port, trustRootsPEM: trustRoots)
        if let host = apns.host, ConfigurationValueParsing.isLoopback(host) {
            // A loopback test peer's certificate names localhost: TLS verifies a name.
            configuration.authority = "localhost"
        }
        configuration.connections = apns.connections
        configuration.codec = context.http2Codec
        configuration.clientIdentity = identity
        configuration.defaultTopic = apns.topic
        configuration.environment = apns.environment
        var channels = ConnectionPool.Configuration(host: apns.effectiveChannelHost, port: apns.effectiveChannelPort, trustRootsPEM: trustRoots)
        if let host = apns.channelHost, ConfigurationValueParsing.isLoopback(host) { channels.authority = "localhost" }
        channels.connections = 1
        channels.codec = context.http2Codec
        channels.clientIdentity = identity
        configuration.channelEndpoint = channels
        return APNSProvider(configuration: configuration, tokens: tokens, group: context.group, logger: context.logger, clock: context.clock)
    }
}
