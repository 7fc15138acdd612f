import Synchronization

/// Lets one caller in at a time and refuses the others at once, for routes whose work reads or
/// copies the whole store: a queue of such callers would only take the node's cores longer.
final class OneAtATime: Sendable {
    private let busy = Atomic<Bool>(false)

    /// Whether the caller got in; one that did calls `leave()` when its work is done.
    func enter() -> Bool {
        self.busy.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
    }

    func leave() {
        self.busy.store(false, ordering: .releasing)
    }
}
