import HeraldCore
import HeraldDelivery
import Synchronization

/// Keeps every dead-token report instead of disabling anything.
final class RecordingDeadTokenHandler: DeadTokenHandler {
    typealias Report = (notification: PushNotification, reason: String)

    private let seen = Mutex<[Report]>([])

    var reports: [Report] { self.seen.withLock { $0 } }

    func tokenIsDead(_ notification: PushNotification, reason: String) async {
        self.seen.withLock { $0.append((notification, reason)) }
    }
}
