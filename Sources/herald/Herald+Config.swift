import ArgumentParser
import HeraldServer

extension Herald {
    struct Config: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Describe Herald's configuration keys.",
            subcommands: [Reference.self]
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
