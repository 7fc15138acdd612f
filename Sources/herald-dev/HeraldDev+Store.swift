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

        func validate() throws {
            guard self.count >= 0, self.batch >= 1 else { throw ValidationError("--count must be ≥ 0 and --batch ≥ 1") }
        }

        func run() async throws {
            let configuration = LMDBEnvironment.Configuration(durable: !self.noSync)
            let store = try LocalStore(path: self.location.path, configuration: configuration)
            let logger = Logger(label: "herald.store.fill")
            let follower = store.follower(logger: logger)
            let following = Task { try await follower.run() }
            let stream = SyntheticCommands(seed: self.seed, subjects: self.subjects)
            let command: (Int) -> RegistryCommand
            if let service = self.silentService {
                let (app, fcmEvery) = (self.app, self.fcmEvery)
                command = { index in SilentBenchRegistrations.command(service: service, app: app, index: index, fcmEvery: fcmEvery) }
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
