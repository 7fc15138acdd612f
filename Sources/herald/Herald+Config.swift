import ArgumentParser
import Foundation
import HeraldConfig
import HeraldServer
import Logging

extension Herald {
    struct Config: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a configuration, or describe Herald's configuration keys.",
            subcommands: [Check.self, Reference.self]
        )
    }
}

extension Herald.Config {
    struct Reference: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the table of configuration keys as Markdown (the one in docs/configuration.md)."
        )

        func run() async throws {
            print(HeraldConfiguration.markdownReference())
        }
    }
}

extension Herald.Config {
    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a configuration file as `herald serve` would read it, without serving.",
            discussion: """
                Reads FILE with the HERALD_* environment over it, then builds the node on a scratch \
                store: unknown keys, bad values, unreadable key and certificate files, apps without \
                credentials and front doors naming apps they cannot use are all refused, exit 78 \
                with the key named. Nothing is bound, sent or written under store.path.
                """
        )

        @Argument(help: "The configuration file.")
        var file: String

        func run() async throws {
            let effective: EffectiveConfiguration
            do {
                effective = try await HeraldConfiguration.load(
                    from: ConfigurationSources(arguments: [], environment: ProcessInfo.processInfo.environment, filePath: self.file)
                )
            } catch let error as ConfigurationError {
                FileHandle.standardError.write(Data("herald: \(self.file): \(error)\n".utf8))
                throw ExitCode(78)  // EX_CONFIG
            }
            let configuration = effective.configuration
            var scratch = configuration
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-check-\(UUID().uuidString)").path
            scratch.store.path = directory + "/data"
            defer { try? FileManager.default.removeItem(atPath: directory) }
            var logger = Logger(label: "herald")
            logger.logLevel = .critical
            do {
                let node = try HeraldNode.build(configuration: scratch, logger: logger)
                try await node.close()
            } catch {
                FileHandle.standardError.write(Data("herald: \(self.file): \(error)\n".utf8))
                throw ExitCode(78)  // EX_CONFIG
            }
            let budget = DescriptorBudget(configuration: configuration)
            print("\(self.file): the configuration is valid")
            print("  store: \(configuration.store.path)")
            print("  apps: \(configuration.apps.isEmpty ? "none" : configuration.appSummary)")
            print("  open files it needs: \(budget.reserved) beside API connections, so at least \(budget.reserved + DescriptorBudget.minimumAPIConnections) (LimitNOFILE=)")
        }
    }
}
