import ArgumentParser
import Foundation
import HeraldStore
import Logging

extension Herald {
    struct Store: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Inspect and check a node's LMDB store.",
            subcommands: [Verify.self]
        )
    }
}

extension Herald.Store {
    struct Location: ParsableArguments {
        @Option(name: .customLong("path"), help: "The store directory (store.path).")
        var path: String = "./herald-data"
    }

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check that the command log is contiguous and the view equals a replay of it.",
            discussion: "Reads the whole store; run it on a stopped node or a copy. Exits 1 when inconsistent."
        )

        @OptionGroup var location: Location

        func run() async throws {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: self.location.path + "/data.mdb", isDirectory: &isDirectory), !isDirectory.boolValue else {
                throw ValidationError("no Herald store at \(self.location.path) (no data.mdb there)")
            }
            let store = try LocalStore(path: self.location.path)
            let result = try await store.verify()
            try await store.close()
            print(result)
            if !result.isConsistent { throw ExitCode(1) }
        }
    }
}
