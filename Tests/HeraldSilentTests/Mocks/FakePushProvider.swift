import HeraldCore
import HeraldDelivery
import HeraldTesting
import Synchronization

/// A provider that answers from a script, without a connection, and keeps every notification it
/// was given.
final class FakePushProvider: PushProvider {
    enum Answer: Sendable {
        case outcome(DeliveryOutcome)
        /// Throws `AdmissionError` (a full queue): the push was not admitted.
        case notAdmitted
        /// Sleeps a second on `clock` first, so the push stays pending until the test moves it.
        case afterSleeping(TestClock, DeliveryOutcome)
    }

    private struct State {
        var answer: Answer
        var byToken: [String: DeliveryOutcome] = [:]
        var sent: [PushNotification] = []
    }

    let name: String
    let platform: Platform
    let apnsEnvironment: APNSAppConfiguration.Environment?
    private let state: Mutex<State>

    init(_ platform: Platform, environment: APNSAppConfiguration.Environment = .production, answer: Answer = .outcome(.delivered)) {
        self.name = platform == .fcm ? "fcm" : "apns"
        self.platform = platform
        self.apnsEnvironment = platform == .apns ? environment : nil
        self.state = Mutex(State(answer: answer))
    }

    /// Every notification given to `send`, in order.
    var sent: [PushNotification] { self.state.withLock { $0.sent } }

    /// How later pushes are answered.
    func script(_ answer: Answer) {
        self.state.withLock { $0.answer = answer }
    }

    /// How pushes to `token` are answered, whatever the general answer.
    func script(token: String, _ outcome: DeliveryOutcome) {
        self.state.withLock { $0.byToken[token] = outcome }
    }

    func send(_ notification: PushNotification) async throws(AdmissionError) -> DeliveryOutcome {
        let answer = self.state.withLock { state -> Answer in
            state.sent.append(notification)
            if let scripted = state.byToken[notification.device.token] { return .outcome(scripted) }
            return state.answer
        }
        switch answer {
        case .outcome(let outcome):
            return outcome
        case .notAdmitted:
            throw AdmissionError(.overloaded, "the queue is full", retryAfter: .seconds(1))
        case .afterSleeping(let clock, let outcome):
            try? await clock.sleep(until: clock.now.advanced(by: .seconds(1)))
            return outcome
        }
    }

    var queueDepth: Int { 0 }
    var openConnections: Int { 0 }
    func shutdown() async {}
}
