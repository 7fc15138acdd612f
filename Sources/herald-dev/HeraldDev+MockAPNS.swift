import ArgumentParser
import Crypto
import Foundation
import HeraldDelivery
import HeraldTesting
import UnixSignals

extension HeraldDev {
    struct MockAPNSCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "mock-apns",
            abstract: "Run the strict mock APNs (a test peer) on 127.0.0.1, for local trials and benchmarks.",
            discussion: """
                Listens with HTTP/2 over TLS using a certificate made at start (written to \
                --certificate-out for clients to trust). Accepts provider tokens signed by the \
                P-256 key in --key (a .p8 PEM; one is generated and written to --key-out when \
                absent) with --key-id and --team-id. Stops on SIGINT or SIGTERM.
                """
        )

        @Option(help: "Port to listen on (0 picks a free one).") var port: Int = 2197
        @Option(help: "The signing key's .p8 PEM file (its public key verifies provider tokens).") var key: String?
        @Option(help: "Where to write a generated signing key when --key is not given.") var keyOut: String = "mock-apns-key.p8"
        @Option(help: "Key ID of the signing key.") var keyID: String = "MOCKKEY001"
        @Option(help: "Team ID of the signing key.") var teamID: String = "MOCKTEAM01"
        @Option(help: "Where to write the mock's TLS certificate (PEM).") var certificateOut: String = "mock-apns-cert.pem"
        @Option(help: "Event-loop threads.") var threads: Int = 1
        @Option(help: "Also write a provider token (JWT, valid an hour) signed with the key, for clients such as h2load.")
        var tokenOut: String?

        func run() async throws {
            let privateKey: P256.Signing.PrivateKey
            if let key {
                privateKey = try P256.Signing.PrivateKey(pemRepresentation: String(contentsOfFile: key, encoding: .utf8))
            } else {
                privateKey = P256.Signing.PrivateKey()
                try privateKey.pemRepresentation.write(toFile: self.keyOut, atomically: true, encoding: .utf8)
            }
            let configuration = MockAPNS.Configuration(keys: [.init(keyID: self.keyID, teamID: self.teamID, publicKey: privateKey.publicKey)])
            let mock = try await MockAPNS.start(configuration: configuration, port: self.port, threads: max(self.threads, 1))
            try mock.certificatePEM.write(toFile: self.certificateOut, atomically: true, encoding: .utf8)
            if let tokenOut = self.tokenOut {
                let tokens = try APNSTokenManager(
                    credentials: .init(keyID: self.keyID, teamID: self.teamID, privateKeyPEM: privateKey.pemRepresentation)
                )
                try await tokens.token().write(toFile: tokenOut, atomically: true, encoding: .utf8)
            }
            print("mock APNs listening on https://127.0.0.1:\(mock.port) (certificate \(self.certificateOut), key id \(self.keyID), team id \(self.teamID)\(self.key == nil ? ", key \(self.keyOut)" : ""))")
            for await _ in await UnixSignalsSequence(trapping: .sigterm, .sigint) { break }
            print("mock APNs stopping: \(mock.accepted.count) pushes accepted, \(mock.requestCount) requests validated")
            try await mock.shutdown()
        }
    }
}
