import Foundation
import Synchronization

/// One `redis-server` shared by the tests of a process that only need a server (each test under
/// its own key prefix); started on first use, killed when the test process exits.
public enum SharedRedisServer {
    private static let shared = SharedAtExit(start: { try await RedisServer.start() }, stop: { $0.stop() })

    /// The shared server, started if needed.
    public static func get() async throws -> RedisServer { try await shared.get() }

    /// The server once `get()` has returned, for synchronous fixtures; throws before that.
    public static func current() throws -> RedisServer { try shared.current() }

    /// A key prefix no other test uses.
    public static func uniquePrefix(_ name: String) -> String { "test:\(name):\(UUID().uuidString):" }
}

/// One three-master cluster shared by the tests of a process that only read and write through it
/// (each under its own key prefix); started on first use, stopped when the test process exits.
public enum SharedRedisCluster {
    private static let shared = SharedAtExit(start: { try await RedisCluster.start() }, stop: { $0.stop() })

    /// The shared cluster, started if needed.
    public static func get() async throws -> RedisCluster { try await shared.get() }

    /// The cluster once `get()` has returned, for synchronous fixtures; throws before that.
    public static func current() throws -> RedisCluster { try shared.current() }
}

/// A value started once per test process on first use and stopped when the process exits.
final class SharedAtExit<Value: Sendable>: Sendable {
    private let task: Task<Value, any Error>
    private let started: StartedBox<Value>

    init(start: @escaping @Sendable () async throws -> Value, stop: @escaping @Sendable (Value) -> Void) {
        let started = StartedBox<Value>()
        self.started = started
        task = Task {
            let value = try await start()
            started.value.withLock { $0 = value }
            ExitActions.add { stop(value) }
            return value
        }
    }

    func get() async throws -> Value { try await task.value }

    func current() throws -> Value {
        guard let value = started.value.withLock({ $0 }) else {
            throw ConditionTimedOut(condition: "the shared value's get()")
        }
        return value
    }
}

private final class StartedBox<Value: Sendable>: Sendable {
    let value = Mutex<Value?>(nil)
}

/// Work run once at process exit (one `atexit` handler for all of it).
private enum ExitActions {
    private static let actions = Mutex<[@Sendable () -> Void]>([])
    private static let registered = Mutex(false)

    static func add(_ action: @escaping @Sendable () -> Void) {
        actions.withLock { $0.append(action) }
        let first = registered.withLock { registered in
            defer { registered = true }
            return !registered
        }
        if first { atexit { ExitActions.runAll() } }
    }

    private static func runAll() {
        for action in actions.withLock({ $0 }) { action() }
    }
}
