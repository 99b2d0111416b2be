import CFuzzSupport
import Foundation

/// Hands the process to libFuzzer with `callback` as the code under test, and exits with its status.
///
/// libFuzzer parses the command line (corpus folders, `-max_total_time=`, …) and calls
/// `LLVMFuzzerInitialize` (see `fuzzerInitialize`) first.
public func runFuzzer(_ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, callback))
}
