import ArgumentParser

@main
struct Herald: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Herald: a push-notification gateway for APNs and FCM.",
        subcommands: [Serve.self, Config.self, Store.self, Keygen.self, MockAPNSCommand.self, MockFCMCommand.self, Bench.self],
        defaultSubcommand: Serve.self
    )
}
