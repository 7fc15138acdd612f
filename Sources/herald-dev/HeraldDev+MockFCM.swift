import ArgumentParser
import Foundation
import HeraldTesting
import UnixSignals

extension HeraldDev {
    struct MockFCMCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "mock-fcm",
            abstract: "Run the strict mock FCM (a test peer) on 127.0.0.1, for local trials and benchmarks.",
            discussion: """
                Serves Google's token endpoint (POST /token) and FCM HTTP v1's send endpoint \
                (POST /v1/projects/{project}/messages:send) with HTTP/2 over TLS, using a \
                certificate made at start (written to --certificate-out for clients to trust). \
                Generates a service account and writes its JSON to --service-account-out, with \
                token_uri pointing at the mock; only JWTs signed by its key are exchanged. Stops \
                on SIGINT or SIGTERM.
                """
        )

        @Option(help: "Port to listen on (0 picks a free one).") var port: Int = 8443
        @Option(help: "The project ID sends must name.") var projectID: String = "herald-test"
        @Option(help: "A project number sends may name instead of the ID.") var projectNumber: String?
        @Option(help: "Where to write the generated service-account JSON.") var serviceAccountOut: String = "mock-fcm-service-account.json"
        @Option(help: "Where to write the mock's TLS certificate (PEM); default: the service-account file plus .ca.pem.")
        var certificateOut: String?
        @Option(help: "Seconds an access token lives (expires_in).") var accessTokenLifetime: Int = 3599

        func validate() throws {
            guard (0...65535).contains(self.port) else { throw ValidationError("--port must be 0…65535.") }
            guard self.accessTokenLifetime > 0 else { throw ValidationError("--access-token-lifetime must be positive.") }
        }

        func run() async throws {
            let account = try TestServiceAccount(projectID: self.projectID)
            var configuration = account.mockConfiguration()
            configuration.projectNumber = self.projectNumber
            configuration.accessTokenLifetime = self.accessTokenLifetime
            let mock = try await MockFCM.start(configuration: configuration, port: self.port)
            let certificateOut = self.certificateOut ?? self.serviceAccountOut + ".ca.pem"
            do {
                try account.json(tokenURI: mock.tokenURI).write(toFile: self.serviceAccountOut, atomically: true, encoding: .utf8)
                try mock.certificatePEM.write(toFile: certificateOut, atomically: true, encoding: .utf8)
            } catch {
                await mock.shutdown()
                throw error
            }
            // Written unbuffered: scripts read the port from this line while the mock runs, and
            // `print` into a pipe or file would hold it back until exit.
            FileHandle.standardOutput.write(
                Data(
                    ("mock FCM listening on \(mock.baseURL) (project \(self.projectID), token URI \(mock.tokenURI), "
                        + "service account \(self.serviceAccountOut), certificate \(certificateOut))\n").utf8
                )
            )
            for await _ in await UnixSignalsSequence(trapping: .sigterm, .sigint) { break }
            print(
                "mock FCM stopping: \(mock.acceptedCount) messages accepted, \(mock.sendRequestCount) sends and "
                    + "\(mock.tokenRequestCount) token requests answered, \(mock.accessTokensIssued) access tokens issued"
            )
            await mock.shutdown()
        }
    }
}
