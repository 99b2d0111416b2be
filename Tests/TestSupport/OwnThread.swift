import Foundation

/// Runs `body` on a thread of its own and returns what it returns (or throws what it throws), suspending the
/// caller meanwhile: for CPU-heavy or blocking test work such as making a 12 MP fixture and encoding it.
///
/// An async test's own code runs on the cooperative pool, which on Linux is only as wide as the machine has cores
/// (two here). Seconds of work there are seconds in which the suite's other tests cannot even send a request; on a
/// busy machine they became minutes, and every test waiting on an origin timed out at once.
public func onOwnThread<Value: Sendable>(
    _ name: String = "test work", _ body: @escaping @Sendable () throws -> Value
) async throws -> Value {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, Error>) in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.name = name
        thread.start()
    }
}
