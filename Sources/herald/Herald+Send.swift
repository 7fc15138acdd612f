import ArgumentParser
import Foundation
import HeraldConfig
import HeraldCore
import HeraldServer
import Logging

extension Herald {
    struct Send: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send one push with a node's configuration and credentials, and print the provider's answer.",
            discussion: """
                Builds the app's provider as `herald serve` would (the same file, the same \
                HERALD_* environment) and sends the push gorush's /api/push makes of the same \
                fields. Prints the provider, the HTTP status, the apns-id or FCM message name and \
                the outcome. Exit 0 delivered, 1 refused or failed, 78 a configuration problem, \
                64 fields that make no push. A new APNs provider token is signed for the push: \
                APNs refuses keys whose tokens change more often than every 20 minutes, so do not \
                loop it.
                """
        )

        @Option(help: "YAML configuration file (as for serve: HERALD_CONFIG or ./herald.yaml when not given).")
        var config: String?

        @Option(help: "The app, a key under apps.")
        var app: String

        @Option(help: "The device token (APNs: hex; FCM: the registration token; Web Push: the subscription's JSON).")
        var token: String

        @Option(help: "ios, android or web; needed only when the app has several providers.")
        var platform: PlatformName?

        @Option(help: "The alert's title.")
        var title: String?

        @Option(help: "The alert's body.")
        var message: String

        @Option(help: "APNs push type (alert, background, voip, liveactivity, …).")
        var pushType: String?

        @Option(help: "APNs topic instead of the app's apns.topic.")
        var topic: String?

        @Flag(help: "APNs sandbox environment instead of the app's apns.environment.")
        var sandbox = false

        enum PlatformName: String, ExpressibleByArgument, CaseIterable {
            case ios, android, web

            var platform: Platform {
                switch self {
                case .ios: .apns
                case .android: .fcm
                case .web: .webPush
                }
            }
        }

        func run() async throws {
            let configuration: HeraldConfiguration
            do {
                configuration = try await HeraldConfiguration.load(
                    from: ConfigurationSources(arguments: [], environment: ProcessInfo.processInfo.environment, filePath: self.config)
                ).configuration
            } catch let error as ConfigurationError {
                FileHandle.standardError.write(Data("herald: \(error)\n".utf8))
                throw ExitCode(78)  // EX_CONFIG
            }
            var push = OnePush(app: self.app, token: self.token, message: self.message)
            push.platform = self.platform?.platform
            push.title = self.title
            push.pushType = self.pushType
            push.topic = self.topic
            push.sandbox = self.sandbox
            var logger = Logger(label: "herald")
            logger.logLevel = .error
            let answer: OnePush.Answer
            do {
                answer = try await push.send(configuration: configuration, logger: logger)
            } catch let error as OnePush.Refusal {
                FileHandle.standardError.write(Data("herald: \(error)\n".utf8))
                throw ExitCode(64)  // EX_USAGE
            } catch let error as ConfigurationError {
                FileHandle.standardError.write(Data("herald: \(error)\n".utf8))
                throw ExitCode(78)
            }
            print("provider: \(answer.provider) (\(answer.endpoint))")
            print("status: \(answer.status.map(String.init) ?? "no answer")")
            if let id = answer.apnsID { print("apns-id: \(id)") }
            if let name = answer.messageName { print("message: \(name)") }
            print("outcome: \(answer.outcome.result)\(answer.outcome.failure.map { " (\($0))" } ?? "")")
            let (seconds, attoseconds) = answer.duration.components
            print("took: \(seconds * 1000 + attoseconds / 1_000_000_000_000_000) ms")
            if !answer.delivered { throw ExitCode(1) }
        }
    }
}
