import HeraldCore
import Synchronization

/// Who wants to hear of applied entries: per-registration state kept outside the view (a front
/// door's topics to listen on) follows the log on every node, whoever appended the entries.
final class ApplyObservers: Sendable {
    private let observers = Mutex<[@Sendable ([LogEntry]) -> Void]>([])

    func add(_ observer: @escaping @Sendable ([LogEntry]) -> Void) {
        self.observers.withLock { $0.append(observer) }
    }

    func notify(_ entries: [LogEntry]) {
        for observer in self.observers.withLock({ $0 }) { observer(entries) }
    }
}
