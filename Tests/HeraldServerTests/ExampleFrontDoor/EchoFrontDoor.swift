import HeraldFrontDoor
import Hummingbird
import ServiceLifecycle
import Synchronization

/// The smallest front door: a route, a service and a start-up line, built from its own section.
/// It lives in this folder alone; `FrontDoorSeamTests` registers it with one line.
struct EchoFrontDoor: FrontDoor {
    let greeting: String
    let lifecycle: EchoLifecycle

    static func make(configuration: EchoConfiguration, context: FrontDoorContext) throws -> EchoFrontDoor? {
        guard let greeting = configuration.greeting else { return nil }
        return EchoFrontDoor(greeting: Array(repeating: greeting, count: configuration.repeats).joined(separator: " "), lifecycle: EchoLifecycle())
    }

    func registerRoutes(on router: some RouterMethods<HeraldRequestContext>) {
        router.get("/echo/v1") { _, _ in self.greeting }
    }

    var services: [any Service] { [self.lifecycle] }

    var summary: FrontDoorSummary { FrontDoorSummary("front door: echo GET /echo/v1") }
}

/// Records that the node ran the front door's service and stopped it gracefully.
final class EchoLifecycle: Service {
    private let events = Mutex<[String]>([])

    var recorded: [String] { self.events.withLock { $0 } }

    func run() async throws {
        self.events.withLock { $0.append("started") }
        try? await gracefulShutdown()
        self.events.withLock { $0.append("stopped") }
    }
}
