import Dispatch
import Synchronization

/// Runs async Herald code from libFuzzer's synchronous callback and waits for its result. The
/// callback's thread blocks on a semaphore; the work runs on the cooperative pool, never on it.
public func runBlocking<Result: Sendable>(_ work: @escaping @Sendable () async -> Result) -> Result {
    let outcome = Outcome<Result>()
    let done = DispatchSemaphore(value: 0)
    Task {
        let result = await work()
        outcome.value.withLock { $0 = result }
        done.signal()
    }
    done.wait()
    guard let result = outcome.value.withLock({ $0 }) else { preconditionFailure("the task ended without a result") }
    return result
}

private final class Outcome<Value: Sendable>: Sendable {
    let value = Mutex<Value?>(nil)
}
