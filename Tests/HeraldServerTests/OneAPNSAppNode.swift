import Crypto
import Foundation
import HeraldConfig
import HeraldServer
import HeraldTesting
import Logging

/// A node whose one app, `wallet`, delivers through a strict mock APNs, configured from YAML as an
/// operator would: what the tests of the node below its front doors start from.
enum OneAPNSAppNode {
    static let keyID = "ABC123DEFG"
    static let teamID = "DEF123GHIJ"
    static let topic = "im.herald.wallet"

    /// `mock` adjusts the mock's configuration; `apnsYAML` adds keys to the app's `apns` section,
    /// each line indented six spaces, given the running mock.
    static func with(
        mock adjust: (inout MockAPNS.Configuration) -> Void = { _ in },
        apnsYAML: (MockAPNS) -> String = { _ in "" },
        _ body: (HeraldNode, MockAPNS) async throws -> Void
    ) async throws {
        try await withTemporaryDirectory { directory in
            let key = P256.Signing.PrivateKey()
            var configuration = MockAPNS.Configuration(keys: [.init(keyID: Self.keyID, teamID: Self.teamID, publicKey: key.publicKey)])
            adjust(&configuration)
            let mock = try await MockAPNS.start(configuration: configuration)
            do {
                try key.pemRepresentation.write(toFile: directory + "/key.p8", atomically: true, encoding: .utf8)
                try mock.certificatePEM.write(toFile: directory + "/ca.pem", atomically: true, encoding: .utf8)
                let yaml = """
                    store:
                      path: \(directory)/data
                    apps:
                      wallet:
                        apns:
                          key-file: \(directory)/key.p8
                          key-id: \(Self.keyID)
                          team-id: \(Self.teamID)
                          topic: \(Self.topic)
                          host: 127.0.0.1
                          port: \(mock.port)
                          ca-file: \(directory)/ca.pem

                    """ + apnsYAML(mock)
                try yaml.write(toFile: directory + "/herald.yaml", atomically: true, encoding: .utf8)
                let loaded = try await HeraldConfiguration.load(from: ConfigurationSources(filePath: directory + "/herald.yaml")).configuration
                let node = try HeraldNode.build(configuration: loaded, logger: Logger(label: "test"))
                try await body(node, mock)
            } catch {
                try? await mock.shutdown()
                throw error
            }
            try await mock.shutdown()
        }
    }
}
