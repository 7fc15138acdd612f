#if canImport(Glibc)
import Glibc
#endif

// SwiftPM renames every executable's entry point and links with `--defsym main=<Target>_main`,
// so libFuzzer's own `main` never runs: each target's main.swift calls `runFuzzer`, which
// starts libFuzzer's driver with the process's arguments.
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

// Global because a C callback captures nothing. Safe without a lock: it is written once, before
// the driver starts, and libFuzzer calls the callback on the one thread that started it.
nonisolated(unsafe) private var fuzzBody: ((UnsafeRawBufferPointer) -> Void)?

/// Runs libFuzzer with the process's own arguments, calling `body` once per input; exits with
/// the driver's status (0, or 77 as set by `-error_exitcode` when an input crashed).
public func runFuzzer(_ body: @escaping (UnsafeRawBufferPointer) -> Void) -> Never {
    fuzzBody = body
    var argc = CommandLine.argc
    var argv = CommandLine.unsafeArgv
    let status = LLVMFuzzerRunDriver(&argc, &argv) { data, size in
        // libFuzzer passes a null pointer for the empty input.
        fuzzBody?(UnsafeRawBufferPointer(start: size == 0 ? nil : data, count: size))
        return 0
    }
    exit(status)
}
