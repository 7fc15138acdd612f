import ArgumentParser
import Foundation
import HeraldConfig
import HeraldCore
import HeraldFrontDoor
import HeraldServer
import HeraldStore
import Logging
import NIOCore

extension Herald {
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run a Herald node.",
            discussion: """
                Configuration comes from flags, then HERALD_* environment variables, then a YAML file \
                (--config, HERALD_CONFIG, or ./herald.yaml when it exists), then defaults. Every key \
                is also a flag: store.map-size is --store-map-size. With no configuration at all the \
                node listens on 127.0.0.1:8080 and keeps its data in ./herald-data. \
                Keys: docs/configuration.md or `herald config reference`.
                """
        )

        @Option(help: "YAML configuration file.")
        var config: String?

        @Flag(help: "Print the effective configuration (secrets masked) and exit.")
        var printConfig = false

        @Argument(parsing: .allUnrecognized, help: "Configuration keys as flags, e.g. --server-port 9000.")
        var settings: [String] = []

        func run() async throws {
            let effective: EffectiveConfiguration
            do {
                effective = try await HeraldConfiguration.load(
                    from: ConfigurationSources(arguments: self.settings, environment: ProcessInfo.processInfo.environment, filePath: self.config)
                )
            } catch let error as ConfigurationError {
                FileHandle.standardError.write(Data("herald: \(error)\n".utf8))
                throw ExitCode(78)  // EX_CONFIG
            }
            if self.printConfig {
                print(effective.rendered())
                return
            }
            let configuration = effective.configuration
            let level = configuration.log.level
            switch configuration.log.format {
            case .text:
                LoggingSystem.bootstrap { label in
                    var handler = TextLogHandler(label: label)
                    handler.logLevel = level
                    return handler
                }
            case .json:
                LoggingSystem.bootstrap { label in
                    var handler = JSONLogHandler(label: label)
                    handler.logLevel = level
                    return handler
                }
            }
            let logger = Logger(label: "herald")
            // Every connection holds a descriptor: start with all the hard limit allows.
            let files = FileDescriptorLimit.raiseToHard()
            logger.notice(
                "open-file limit",
                metadata: ["soft.before": "\(files.before)", "soft": "\(files.after)", "hard": "\(files.hard)"]
            )
            let budget = DescriptorBudget(configuration: configuration)
            guard let connections = budget.apiConnections(configured: configuration.server.maxConnections, openFiles: files.after) else {
                FileHandle.standardError.write(Data("herald: \(budget.refusal(openFiles: files.after))\n".utf8))
                throw ExitCode(78)  // EX_CONFIG
            }
            if connections < configuration.server.maxConnections {
                logger.warning(
                    "server.max-connections lowered to fit the open-file limit",
                    metadata: [
                        "server.max-connections": "\(configuration.server.maxConnections)", "effective": "\(connections)",
                        "descriptors.reserved": "\(budget.reserved)",
                    ]
                )
            }

            // While a snapshot arrives, probes and scrapes hear that the node is restoring.
            let progress = RestoreProgress()
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    do {
                        try await RestoringServer.serve(configuration: configuration, progress: progress, logger: logger)
                    } catch {
                        logger.warning("cannot answer probes while restoring the store", metadata: ["error": "\(error)"])
                    }
                }
                do {
                    try await HeraldNode.restoreStoreFromPeer(configuration: configuration, progress: progress, logger: logger)
                } catch {
                    // The node starts anyway and builds its store from the log, as before snapshots.
                    logger.warning("cannot look for a member's snapshot; the store is built from the log", metadata: ["error": "\(error)"])
                }
                progress.finish()
            }
            let node: HeraldNode
            do {
                node = try HeraldNode.build(configuration: configuration, logger: logger, configurationText: effective.yaml()) { address in
                    let port = address?.port ?? configuration.server.port
                    logger.notice("Herald is listening on http://\(configuration.server.host):\(port) (/healthz, /readyz, /metrics)")
                }
            } catch {
                // Every failure to build the node comes from what the configuration names: a key
                // file, a certificate, the store's path.
                FileHandle.standardError.write(Data("herald: \(error)\n".utf8))
                throw ExitCode(78)  // EX_CONFIG
            }
            let head = (try? await node.log.head()) ?? 0
            let records = try node.store.view.recordCount()
            logger.notice(
                "store opened",
                metadata: [
                    "store.path": "\(configuration.store.path)",
                    "store.records": "\(records)",
                    "store.key": "\(node.store.cipher?.keyID ?? "none")",
                    "log.head": "\(head)",
                    "config.file": "\(effective.filePath ?? "none")",
                ]
            )
            if configuration.apps.isEmpty {
                logger.notice("no app configured (apps.<app>.apns.* or apps.<app>.fcm.*): notifications cannot be delivered, so the gorush front door is not mounted")
            } else {
                logger.notice("apps: \(configuration.appSummary)")
                if let url = configuration.feedback.url { logger.notice("feedback webhook: \(URLRedaction.redact(url))") }
            }
            for frontDoor in node.frontDoors {
                let summary = frontDoor.summary
                logger.notice("\(summary.message)", metadata: summary.metadata)
            }
            if configuration.metrics.bearerToken == nil, configuration.server.host != "127.0.0.1", configuration.server.host != "localhost" {
                logger.warning("/metrics is open to anyone who can reach \(configuration.server.host); set metrics.bearer-token")
            }
            do {
                try await node.run(logger: logger)
            } catch let error as ConfigurationError {
                logger.critical("\(error.message)")
                throw ExitCode(78)  // EX_CONFIG
            }
            logger.notice("Herald stopped")
        }
    }
}
