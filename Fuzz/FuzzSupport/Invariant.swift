/// Fails the run, so libFuzzer records the input as a crash, when a property of Herald's
/// decoders does not hold; `precondition` would be dropped in an `-Ounchecked` build.
public func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) {
    if !condition() { fatalError("invariant broken: \(message())", file: file, line: line) }
}
