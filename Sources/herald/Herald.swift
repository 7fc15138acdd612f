import ArgumentParser
import HeraldBuildInfo
import NIOCore
import NIOPosix

struct Herald: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Herald: a push-notification gateway for APNs and FCM. Test peers and the load generator are in herald-dev.",
        version: HeraldBuildInfo.line,
        subcommands: [Serve.self, Send.self, Config.self, Store.self, Keygen.self, Cluster.self],
        defaultSubcommand: Serve.self
    )
}

@main
enum Entry {
    static func main() async {
        // Tasks run on NIO's event loops instead of a second pool of threads: a push crosses
        // between the HTTP server, its handler task and the HTTP/2 client several times, and on
        // a small machine each crossing was a thread wake-up competing for the same cores.
        // Nothing in Herald blocks a thread waiting for a future, the one thing this forbids.
        NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        await Herald.main()
    }
}
