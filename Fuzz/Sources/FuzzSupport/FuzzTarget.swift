import Foundation

/// One parser under fuzzing: the inputs its corpus starts from and the call that must never crash.
///
/// The call may throw or return anything; libFuzzer (with AddressSanitizer) reports only crashes, traps,
/// memory errors, leaks and timeouts. Every target lives in `FuzzTargets.all`.
public struct FuzzTarget: Sendable {
    /// The target's name: its executable is `fuzz-<name>` and its regressions live in
    /// `Fuzz/Regressions/<name>/`.
    public let name: String
    /// Seed inputs by file name, written by `Fuzz/run` into a fresh corpus (never committed).
    public let seeds: @Sendable () -> [String: Data]
    /// Feeds one input to the parser.
    public let parse: @Sendable (Data) -> Void

    /// Creates a target named `name` that feeds inputs to `parse`, starting from `seeds`.
    public init(
        name: String, seeds: @escaping @Sendable () -> [String: Data], parse: @escaping @Sendable (Data) -> Void
    ) {
        self.name = name
        self.seeds = seeds
        self.parse = parse
    }

    /// The body of `LLVMFuzzerTestOneInput`: copies libFuzzer's bytes and parses them.
    public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
        let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
        parse(data)
        return 0
    }
}
