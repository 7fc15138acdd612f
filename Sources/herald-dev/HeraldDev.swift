import ArgumentParser
import NIOCore
import NIOPosix

struct HeraldDev: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "herald-dev",
        abstract: "Herald's developer tools: the strict mock APNs and FCM, the load generator, synthetic stores. Not for production nodes.",
        subcommands: [MockAPNSCommand.self, MockFCMCommand.self, Bench.self, Store.self]
    )
}

@main
enum Entry {
    static func main() async {
        // As in `herald`: the load generator's tasks run on NIO's event loops, so it measures a
        // node the way the node runs.
        NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        await HeraldDev.main()
    }
}
