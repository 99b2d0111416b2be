import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A real `redis-server` on a free loopback port, in a temporary directory of its own, for tests.
///
/// It binds 127.0.0.1 only with `protected-mode yes`, saves nothing, and is stopped by `stop()` —
/// and, should the test process die first, by a small watchdog that kills it when its parent is
/// gone, so no server outlives the tests. Tests that need it are skipped when the binary is absent:
/// `@Test(.enabled(if: RedisServer.isInstalled, RedisServer.skipReason))`.
public final class RedisServer: Sendable {
    /// Whether `redis-server` (and `redis-cli`, for clusters) are on the PATH.
    public static let isInstalled =
        ChildProcess.executable("redis-server") != nil && ChildProcess.executable("redis-cli") != nil
    /// Why Redis tests are skipped on this machine.
    public static let skipReason: Comment =
        "needs redis-server and redis-cli on PATH: apt-get install redis-server redis-tools"

    /// The TCP port on 127.0.0.1.
    public let port: Int
    /// The server's directory (configuration, log, cluster state).
    public let directory: TemporaryDirectory
    private let configuration: URL
    private let processes = Mutex<[SpawnedProcess]>([])

    /// The `redis://` address of the server.
    public var address: String { "redis://127.0.0.1:\(port)" }

    /// Starts a server with extra `redis.conf` lines (such as `requirepass secret`) and waits until
    /// it accepts connections.
    public static func start(
        configuration lines: [String] = [], port: Int? = nil, clusterBus: Bool = false
    ) async throws -> RedisServer {
        // A port found free can be taken before the server binds it (an outgoing connection's ephemeral
        // port): a server that exits at once is started again on another port, when the port was ours to pick.
        var attempt = 0
        while true {
            attempt += 1
            let server = try RedisServer(lines: lines, port: port ?? freeLoopbackPort(needsBusPort: clusterBus))
            do {
                try await server.launch()
                return server
            } catch is ServerExited where port == nil && attempt < 5 {
                server.stop()
            } catch {
                server.stop()
                throw error
            }
        }
    }

    /// The server process ended before it answered (its port was taken, most often).
    struct ServerExited: Error, CustomStringConvertible {
        var port: Int
        var description: String { "redis-server on port \(port) exited before answering; see its redis.log" }
    }

    private init(lines: [String], port: Int) throws {
        self.port = port
        directory = try TemporaryDirectory("redis-\(port)")
        configuration = directory.appending("redis.conf")
        let text =
            [
                "bind 127.0.0.1", "port \(port)", "protected-mode yes", "daemonize no", "save \"\"", "appendonly no",
                "dir \(directory.url.path)", "logfile \(directory.appending("redis.log").path)",
                "maxmemory 512mb", "maxmemory-policy allkeys-lru",
            ] + lines
        try text.joined(separator: "\n").write(to: configuration, atomically: true, encoding: .utf8)
    }

    /// Starts (or restarts, after `kill()`) the server on the same port and waits until it answers.
    public func launch() async throws {
        guard let executable = ChildProcess.executable("redis-server") else { throw ServerExited(port: port) }
        let server = try SpawnedProcess(executable, [configuration.path])
        let serverExit = server.exit
        let watchdog = try SpawnedProcess(
            URL(fileURLWithPath: "/bin/sh"),
            [
                "-c",
                "while kill -0 \(getpid()) 2>/dev/null && kill -0 \(server.processIdentifier) 2>/dev/null; "
                    + "do sleep 1; done; kill -9 \(server.processIdentifier) 2>/dev/null",
            ])
        processes.withLock { $0 = [server, watchdog] }
        let port = self.port
        // Pinged over a socket of this process: starting `redis-cli` for every try cost seconds per start
        // under TSan, and a start under the spawn lock waits for every other test's.
        try await waitUntil("redis-server answers PING on port \(port)", timeout: .seconds(120)) {
            guard !serverExit.hasExited else { return true }
            return await Self.answersPing(port: port)
        }
        guard !serverExit.hasExited else { throw ServerExited(port: port) }
    }

    /// Kills the server at once (SIGKILL), as a crash would, and waits for it to be gone.
    public func kill() {
        let running = processes.withLock { processes in
            defer { processes = [] }
            return processes
        }
        for process in running where !process.exit.hasExited {
            Glibc.kill(process.processIdentifier, SIGKILL)
            _ = process.exit.wait(until: .now() + .seconds(30))
        }
    }

    /// Stops the server and removes its directory.
    public func stop() {
        kill()
        directory.remove()
    }

    /// Runs `redis-cli -p port args…` and returns its output.
    public func cli(_ arguments: [String]) throws -> String { try Self.cli(port: port, arguments) }

    static func cli(port: Int, _ arguments: [String]) throws -> String {
        try ChildProcess.run(cliPath, ["-h", "127.0.0.1", "-p", String(port)] + arguments).output
    }

    /// Whether a server on 127.0.0.1:`port` answers an inline `PING` (`+PONG`, or `-NOAUTH` from a server with
    /// a password: it is up all the same). Runs off the cooperative pool; a read waits at most 2 seconds.
    static func answersPing(port: Int) async -> Bool {
        (try? await onOwnThread("redis ping") { pingOnce(port: port) }) ?? false
    }

    private static func pingOnce(port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = loopbackAddress(port: port)
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        let ping = Array("PING\r\n".utf8)
        guard connected, send(descriptor, ping, ping.count, Int32(MSG_NOSIGNAL)) == ping.count else { return false }
        var reply = [UInt8](repeating: 0, count: 64)
        let count = recv(descriptor, &reply, reply.count, 0)
        guard count > 0 else { return false }
        let text = String(decoding: reply[0..<count], as: UTF8.self)
        return text.hasPrefix("+PONG") || text.hasPrefix("-NOAUTH")
    }

    private static var cliPath: URL {
        ChildProcess.executable("redis-cli") ?? URL(fileURLWithPath: "/usr/bin/redis-cli")
    }

    /// A loopback port nothing listens on now (and, for a cluster node, its bus port + 10000 too).
    public static func freeLoopbackPort(needsBusPort: Bool = false) throws -> Int {
        for _ in 0..<200 {
            let candidate = needsBusPort ? Int.random(in: 20_000..<45_000) : Int.random(in: 20_000..<60_000)
            if canBind(candidate), !needsBusPort || canBind(candidate + 10_000) { return candidate }
        }
        throw ConditionTimedOut(condition: "a free loopback port")
    }

    private static func canBind(_ port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = loopbackAddress(port: port)
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
