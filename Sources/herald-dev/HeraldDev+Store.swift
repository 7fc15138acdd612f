import ArgumentParser
import Foundation
import HeraldCore
import HeraldSilent
import HeraldStore
import HeraldTesting
import Logging

extension HeraldDev {
    struct Store: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fill a store with synthetic registry commands.",
            subcommands: [Fill.self]
        )
    }
}

extension HeraldDev.Store {
    struct Location: ParsableArguments {
        @Option(name: .customLong("path"), help: "The store directory (store.path).")
        var path: String = "./herald-data"
    }

    struct Fill: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Append a deterministic stream of synthetic registry commands.",
            discussion: """
                For benchmarks (a store with N registrations) and crash tests: the same seed always \
                writes the same commands, so what reached the disk can be checked afterwards. \
                Prints "appended N" after each batch.
                """
        )

        @OptionGroup var location: Location
        @Option(help: "Commands to append.") var count: Int = 100_000
        @Option(help: "Commands per append call.") var batch: Int = 100
        @Option(help: "Seed of the synthetic stream.") var seed: UInt64 = 1
        @Option(help: "Distinct subjects the stream draws from.") var subjects: Int = 50_000
        @Flag(help: "Skip fsync on commit (faster; not power-loss safe).") var noSync = false
        @Option(help: "Write silent-sync registrations of this service instead (deviceId bench-device-<n>), for broadcast benchmarks.")
        var silentService: String?
        @Option(help: "With --silent-service: the app the devices reach.") var app: String = "bench"
        @Option(help: "With --silent-service: every n-th device is an FCM device (0: none).") var fcmEvery: Int = 2
        @Flag(help: "Re-register the subjects in turn (subject i mod --subjects, one installation, the version rising each round) instead of the mixed stream: churn, for measuring a store that keeps registrations, not history.")
        var reRegister = false
        @Option(help: "Trim the log while appending, keeping this many entries below what the view applied (as `store.log-retention` does, without the duration).")
        var retain: Int?

        func validate() throws {
            guard self.count >= 0, self.batch >= 1 else { throw ValidationError("--count must be ≥ 0 and --batch ≥ 1") }
        }

        func run() async throws {
            let configuration = LMDBEnvironment.Configuration(durable: !self.noSync)
            let store = try LocalStore(path: self.location.path, configuration: configuration)
            let logger = Logger(label: "herald.store.fill")
            let follower = store.follower(logger: logger)
            let following = Task { try await follower.run() }
            let trimming = self.retain.map { retain in
                Task {
                    while !Task.isCancelled {
                        let applied = try store.view.appliedPosition()
                        if applied > LogPosition(retain), try await store.trimLog(through: applied - LogPosition(retain), limit: 1000) > 0 { continue }
                        try await Task.sleep(for: .milliseconds(10))
                    }
                }
            }
            let stream = SyntheticCommands(seed: self.seed, subjects: self.subjects)
            let command: (Int) -> RegistryCommand
            if let service = self.silentService {
                let (app, fcmEvery) = (self.app, self.fcmEvery)
                command = { index in SilentBenchRegistrations.command(service: service, app: app, index: index, fcmEvery: fcmEvery) }
            } else if self.reRegister {
                let subjects = self.subjects
                command = { index in
                    let subject = index % subjects
                    return .register(
                        Registration(
                            key: SyntheticCommands.key(subject: subject, installation: 0),
                            version: UInt64(index / subjects) + 1,
                            device: Device(platform: .apns, token: String(format: "%064x", subject), topic: "im.herald.synthetic"),
                            attributes: Array(repeating: 0xA5, count: 32)
                        )
                    )
                }
            } else {
                command = stream.command(at:)
            }
            let start = ContinuousClock.now
            let base = Int(try await store.log.head())
            var appended = 0
            while appended < self.count {
                let size = min(self.batch, self.count - appended)
                try await store.log.append((base + appended..<base + appended + size).map(command))
                appended += size
                // Unbuffered, so a parent that kills this process knows what was acknowledged.
                FileHandle.standardOutput.write(Data("appended \(appended)\n".utf8))
            }
            trimming?.cancel()
            _ = try? await trimming?.value
            following.cancel()
            _ = try? await following.value
            try await follower.catchUp()
            let elapsed = ContinuousClock.now - start
            try await store.close()
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            print("done: \(appended) commands in \(String(format: "%.2f", seconds)) s")
        }
    }
}
