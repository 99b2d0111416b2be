import Foundation
import TestSupport
import Testing

/// Two real processes sharing one Redis: the custom-backend example's `--redis` mode runs two
/// workers with separate disk caches, and the second must be served from Redis alone.
@Suite("Two processes sharing Redis", .enabled(if: RedisServer.isInstalled, RedisServer.skipReason))
struct TwoProcessTests {
    /// The example built beside the test bundle (`swift build --build-tests` builds it).
    static let example: URL? = {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidate = directory.appendingPathComponent("custom-backend-example")
        return FileManager.default.isExecutableFile(atPath: candidate.path) ? candidate : nil
    }()

    @Test(.enabled(if: example != nil, "build custom-backend-example first: swift build --build-tests"))
    func theSecondProcessIsServedFromRedis() async throws {
        // Given a server and a scratch directory
        let server = try await RedisServer.start()
        defer { server.stop() }
        let directory = try TemporaryDirectory("two-process")
        defer { directory.remove() }

        // When the example runs its two workers against it
        let output = try await ChildProcess.run(
            try #require(Self.example), ["--redis", server.address, "--cache", directory.url.path])

        // Then the first fetched from its origin, the second from Redis with 0 origin requests
        Self.expectSecondServedFromRedis(output)
    }

    @Test(.enabled(if: example != nil, "build custom-backend-example first: swift build --build-tests"))
    func theSecondProcessIsServedFromRedisCluster() async throws {
        // Given a three-master cluster and a scratch directory
        let cluster = try await RedisCluster.start()
        defer { cluster.stop() }
        let directory = try TemporaryDirectory("two-process-cluster")
        defer { directory.remove() }

        // When the example runs its two workers against it, given every node as a seed
        let arguments = ["--redis-cluster", cluster.seeds.joined(separator: ","), "--cache", directory.url.path]
        let output = try await ChildProcess.run(try #require(Self.example), arguments)

        // Then the second process is served from the cluster alone
        Self.expectSecondServedFromRedis(output)
    }

    static func expectSecondServedFromRedis(_ output: ChildProcess.Outcome) {
        #expect(output.status == 0, "\(output.output)")
        #expect(output.output.contains("process 1: 8 origin requests; images from origin 8"), "\(output.output)")
        #expect(output.output.contains("process 2: 0 origin requests; images from origin 0, memory 0, disk 0, redis 8"))
    }
}
