import Foundation
import MediaAssets
import TestSupport
import Testing

@testable import MediaAssetsRedis

/// Servers that die, stall or answer garbage: reads miss, writes throw typed errors within the
/// timeouts, and the backend recovers by itself.
@Suite("Redis faults", .enabled(if: RedisServer.isInstalled, RedisServer.skipReason))
struct RedisFaultTests {
    static let shortTimeouts = RedisClientOptions(
        connectTimeout: .milliseconds(300), readTimeout: .milliseconds(300),
        initialBackoff: .milliseconds(5), maximumBackoff: .milliseconds(50))

    static func backend(port: Int) -> RedisBackend {
        RedisBackend(
            configuration: .init(
                servers: .single(.tcp(host: "127.0.0.1", port: port)), options: shortTimeouts, keyPrefix: "faults:"))
    }

    @Test func aServerKilledMidRunAndRestartedIsRecoveredFromWithoutHelp() async throws {
        // Given a backend with an entry on a running server
        let server = try await RedisServer.start()
        defer { server.stop() }
        let backend = Self.backend(port: server.port)
        try await backend.store(CacheEntry(data: Data("before".utf8)), forKey: "k")

        // When the server is killed
        server.kill()

        // Then reads miss, and writes throw a transport error
        #expect(try await backend.entry(forKey: "k") == nil)
        await #expect {
            try await backend.store(CacheEntry(data: Data("during".utf8)), forKey: "k")
        } throws: { error in
            (error as? RedisError)?.isConnectionFailure == true
        }
        #expect(backend.redisStatistics().remoteErrors >= 2)

        // When it comes back on the same port (empty: it saves nothing)
        try await server.launch()

        // Then the backend reconnects by itself and works again
        try await waitUntil("a store succeeds after the restart") {
            (try? await backend.store(CacheEntry(data: Data("after".utf8)), forKey: "k")) != nil
        }
        #expect(try await backend.entry(forKey: "k")?.data == Data("after".utf8))
        #expect(backend.redisStatistics().transport.connectionsOpened >= 2)
    }

    @Test func aServerThatNeverAnswersTimesOut() async throws {
        // Given a loopback listener that accepts and never answers
        let silent = try RedisFakeServer(.silent)
        defer { silent.stop() }
        let backend = Self.backend(port: silent.port)

        // When a read and a write are tried, then the read misses and the write throws a timeout
        #expect(try await backend.entry(forKey: "k") == nil)
        await #expect {
            try await backend.store(CacheEntry(data: Data([1])), forKey: "k")
        } throws: { error in
            // The store's first command (the limit lookup or the SET) is the one that times out.
            guard case .timedOut(_, _, let milliseconds) = error as? RedisError else { return false }
            return milliseconds == 300
        }
        #expect(backend.redisStatistics().remoteErrors >= 2)
        #expect(backend.redisStatistics().transport.brokenConnections >= 2)
    }

    @Test func aServerThatAnswersGarbageIsAProtocolError() async throws {
        // Given a loopback listener that answers HTTP
        let garbage = try RedisFakeServer(.answers(Array("HTTP/1.1 400 Bad Request\r\n\r\n".utf8)))
        defer { garbage.stop() }
        let backend = Self.backend(port: garbage.port)

        // When a read and a write are tried, then the read misses and the write names the bad byte
        #expect(try await backend.entry(forKey: "k") == nil)
        await #expect {
            try await backend.store(CacheEntry(data: Data([1])), forKey: "k")
        } throws: { error in
            guard case .protocolViolation(_, let offset, let reason) = error as? RedisError else { return false }
            return offset == 0 && reason.contains("unknown reply type")
        }
        #expect(backend.redisStatistics().remoteErrors >= 2)
    }

    @Test func nothingListeningFailsFastDuringBackoff() async throws {
        // Given a port nothing listens on
        let port = try RedisServer.freeLoopbackPort()
        let options = RedisClientOptions(
            connectTimeout: .milliseconds(300), readTimeout: .milliseconds(300), initialBackoff: .seconds(3_600))
        let backend = RedisBackend(
            configuration: .init(servers: .single(.tcp(host: "127.0.0.1", port: port)), options: options))

        // When two stores are tried back to back
        let first = await #expect(throws: RedisError.self) {
            try await backend.store(CacheEntry(data: Data()), forKey: "k")
        }
        let second = await #expect(throws: RedisError.self) {
            try await backend.store(CacheEntry(data: Data()), forKey: "k")
        }

        // Then the first is a refused connect and the second is refused by the backoff, without a connect
        #expect(first.map { if case .connectFailed = $0 { true } else { false } } == true)
        #expect(second.map { if case .unavailable = $0 { true } else { false } } == true)
        #expect(backend.redisStatistics().transport.connectFailures == 1)
    }
}
