import Foundation
import TestSupport
import Testing

@testable import MediaAssetsRedis

@Suite("Redis client", .enabled(if: RedisServer.isInstalled, RedisServer.skipReason))
struct RedisClientTests {
    @Test func authenticatesWithAPasswordAndAnACLUser() async throws {
        // Given a server with a password for the default user and an ACL user
        let server = try await RedisServer.start(configuration: [
            "requirepass secret", "user alice on >wonderland ~* &* +@all",
        ])
        defer { server.stop() }
        let endpoint = RedisEndpoint.tcp(host: "127.0.0.1", port: server.port)

        // When clients authenticate each way, then both work
        let byPassword = RedisClient(endpoint: endpoint, options: .init(password: "secret"))
        #expect(try await byPassword.send(RESPCommand("PING")) == .simpleString("PONG"))
        let byUser = try RedisClient(address: "redis://alice:wonderland@127.0.0.1:\(server.port)")
        try await byUser.send(RESPCommand("SET", "k", "v"))
        #expect(try await byUser.send(RESPCommand("ACL", "WHOAMI")).text == "alice")

        // And a wrong password is a typed error naming the user
        let wrong = RedisClient(endpoint: endpoint, options: .init(user: "alice", password: "nope"))
        await #expect {
            try await wrong.send(RESPCommand("PING"))
        } throws: { error in
            guard case .authenticationFailed(_, let user, _) = error as? RedisError else { return false }
            return user == "alice"
        }
    }

    @Test func selectsTheDatabase() async throws {
        // Given clients of databases 3 and 0 of one server
        let server = try await SharedRedisServer.get()
        let key = SharedRedisServer.uniquePrefix("select")
        let three = try RedisClient(address: server.address + "/3")
        let zero = try RedisClient(address: server.address)

        // When a key is set in database 3
        try await three.send(RESPCommand("SET", RESPArgument(key), "in three"))

        // Then only database 3 has it
        #expect(try await three.send(RESPCommand("GET", RESPArgument(key))).text == "in three")
        #expect(try await zero.send(RESPCommand("GET", RESPArgument(key))) == .bulkString(nil))
    }

    @Test func pipelinesOneThousandCommandsOnOneConnection() async throws {
        // Given a client
        let server = try await SharedRedisServer.get()
        let client = try RedisClient(address: server.address)
        let prefix = SharedRedisServer.uniquePrefix("pipeline")

        // When 1,000 SETs and a GET go in one pipeline
        let commands = (0..<1_000).map { RESPCommand("SET", RESPArgument(prefix + "\($0)"), RESPArgument($0)) }
        let replies = try await client.pipeline(commands + [RESPCommand("GET", RESPArgument(prefix + "999"))])

        // Then every reply is in order, over one connection
        #expect(replies.dropLast().allSatisfy { $0 == .simpleString("OK") })
        #expect(replies.last?.text == "999")
        #expect(client.transportCounters.connectionsOpened == 1)
    }

    @Test func speaksOverAUnixSocket() async throws {
        // Given a server that also listens on a Unix socket
        let directory = try TemporaryDirectory("rsock")
        defer { directory.remove() }
        let path = directory.appending("redis.sock").path
        let server = try await RedisServer.start(configuration: ["unixsocket \(path)", "unixsocketperm 700"])
        defer { server.stop() }

        // When a client connects through it, then commands work
        let client = try RedisClient(address: "unix://\(path)")
        #expect(try await client.send(RESPCommand("ECHO", "over unix")).text == "over unix")
    }

    @Test func thePoolIsBounded() async throws {
        // Given a client with a pool of two connections (the read timeout is long: this counts
        // connections, and 64 commands take turns under TSan)
        let server = try await SharedRedisServer.get()
        let options = RedisClientOptions(poolSize: 2, readTimeout: .seconds(60))
        let client = RedisClient(endpoint: .tcp(host: "127.0.0.1", port: server.port), options: options)

        // When 64 commands run at once
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<64 {
                group.addTask { _ = try await client.send(RESPCommand("ECHO", RESPArgument(index))) }
            }
            try await group.waitForAll()
        }

        // Then no more than two connections were ever opened
        #expect(client.transportCounters.connectionsOpened <= 2)
        #expect(client.transportCounters.connectionsOpened >= 1)
    }

    @Test func concurrentCommandsShareOneConnectionAndEachGetsItsOwnReply() async throws {
        // Given a client of one connection
        let server = try await SharedRedisServer.get()
        let client = RedisClient(endpoint: .tcp(host: "127.0.0.1", port: server.port), options: .init(poolSize: 1))
        let prefix = SharedRedisServer.uniquePrefix("shared")

        // When 200 tasks each set and read back a value of their own, and one sends 8 MiB (more than
        // the socket takes at once, so the rest is written while other tasks' commands queue behind)
        var large = [UInt8](repeating: 0, count: 8 << 20)
        for offset in stride(from: 0, to: large.count, by: 4_096) { large[offset] = UInt8(offset / 4_096 % 251) }
        let largeValue = Data(large)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await client.send(RESPCommand("SET", RESPArgument(prefix + "large"), RESPArgument(largeValue)))
                #expect(try await client.send(RESPCommand("GET", RESPArgument(prefix + "large"))).bytes == largeValue)
            }
            for index in 0..<200 {
                group.addTask {
                    try await client.send(RESPCommand("SET", RESPArgument(prefix + "\(index)"), RESPArgument(index)))
                    let reply = try await client.send(RESPCommand("GET", RESPArgument(prefix + "\(index)")))
                    #expect(reply.text == "\(index)")
                }
            }
            try await group.waitForAll()
        }

        // Then every reply answered its own command, over the one connection
        #expect(client.transportCounters.connectionsOpened == 1)
        #expect(client.transportCounters.brokenConnections == 0)
    }

    @Test func anErrorReplyIsATypedErrorAndTheConnectionStaysUsable() async throws {
        // Given a client
        let server = try await SharedRedisServer.get()
        let client = RedisClient(endpoint: .tcp(host: "127.0.0.1", port: server.port), options: .init(poolSize: 1))

        // When a command is refused, then the error names it, and the next command works on the same connection
        await #expect {
            try await client.send(RESPCommand("NOSUCHCOMMAND"))
        } throws: { error in
            guard case .serverError(_, let command, let message) = error as? RedisError else { return false }
            return command == "NOSUCHCOMMAND" && message.contains("unknown command")
        }
        #expect(try await client.send(RESPCommand("PING")) == .simpleString("PONG"))
        #expect(client.transportCounters.connectionsOpened == 1)
    }
}
