import Foundation

/// One authenticated connection to one server: sends commands and reads their replies in order.
///
/// Blocking (poll-bounded) and not thread-safe: the pool hands it to one thread at a time, on the
/// client's dispatch queue, never on the cooperative pool. After any transport error it is broken
/// and must be discarded (a late reply would otherwise answer the wrong command). It is
/// `@unchecked Sendable` because the pool moves it between threads but lends it to one at a time.
final class RedisConnection: @unchecked Sendable {
    let endpoint: RedisEndpoint
    private let socket: RedisSocket
    private let readTimeout: Duration
    private var replies = RESPReplyStream()
    private var scratch = [UInt8](repeating: 0, count: 64 << 10)
    private(set) var isBroken = false

    private init(endpoint: RedisEndpoint, socket: RedisSocket, readTimeout: Duration) {
        self.endpoint = endpoint
        self.socket = socket
        self.readTimeout = readTimeout
    }

    /// Connects, authenticates and selects the database within `options.connectTimeout`.
    static func open(to endpoint: RedisEndpoint, options: RedisClientOptions) throws(RedisError) -> RedisConnection {
        let deadline = ContinuousClock.now + options.connectTimeout
        let socket: RedisSocket
        do {
            socket = try RedisSocket.connect(to: endpoint, deadline: deadline)
        } catch {
            throw error.redisError(endpoint: endpoint, operation: "connect", timeout: options.connectTimeout)
        }
        let connection = RedisConnection(endpoint: endpoint, socket: socket, readTimeout: options.readTimeout)
        var handshake: [RESPCommand] = []
        if let password = options.password {
            handshake.append(
                options.user.map { RESPCommand("AUTH", RESPArgument($0), RESPArgument(password)) }
                    ?? RESPCommand("AUTH", RESPArgument(password)))
        }
        if options.database != 0 { handshake.append(RESPCommand("SELECT", RESPArgument(options.database))) }
        guard !handshake.isEmpty else { return connection }
        let answers = try connection.pipeline(handshake, deadline: deadline)
        for (command, answer) in zip(handshake, answers) {
            if case .error(let message) = answer {
                if command.name == "AUTH" {
                    throw .authenticationFailed(endpoint: endpoint.description, user: options.user, message: message)
                }
                throw .serverError(endpoint: endpoint.description, command: command.name, message: message)
            }
        }
        return connection
    }

    /// Sends `commands` in one write and reads one reply per command (error replies included).
    func pipeline(_ commands: [RESPCommand], deadline: ContinuousClock.Instant? = nil) throws(RedisError) -> [RESPValue]
    {
        guard !isBroken else {
            throw .connectionLost(endpoint: endpoint.description, reason: "broken by an earlier error")
        }
        let deadline = deadline ?? ContinuousClock.now + readTimeout
        var request: [UInt8] = []
        for command in commands { command.encode(into: &request) }
        var answers: [RESPValue] = []
        answers.reserveCapacity(commands.count)
        do {
            try socket.send(request, until: deadline)
            while answers.count < commands.count {
                while answers.count < commands.count, let reply = try replies.next() { answers.append(reply) }
                guard answers.count < commands.count else { break }
                let count = try scratch.withUnsafeMutableBytes { raw throws(RedisSocket.Failure) in
                    try socket.receive(into: raw, until: deadline)
                }
                scratch.withUnsafeBytes { replies.append(raw: UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            }
        } catch let failure as RedisSocket.Failure {
            isBroken = true
            socket.close()
            let name = commands.count == 1 ? commands[0].name : "a pipeline of \(commands.count) commands"
            throw failure.redisError(endpoint: endpoint, operation: name, timeout: readTimeout)
        } catch let violation as RESPParser.Violation {
            isBroken = true
            socket.close()
            throw .protocolViolation(endpoint: endpoint.description, offset: violation.offset, reason: violation.reason)
        } catch {
            isBroken = true
            socket.close()
            throw .connectionLost(endpoint: endpoint.description, reason: "\(error)")
        }
        return answers
    }

    func close() {
        isBroken = true
        socket.close()
    }
}

extension RedisSocket.Failure {
    func redisError(endpoint: RedisEndpoint, operation: String, timeout: Duration) -> RedisError {
        switch self {
        case .connect(let reason): return .connectFailed(endpoint: endpoint.description, reason: reason)
        case .timedOut:
            return .timedOut(
                endpoint: endpoint.description, operation: operation, milliseconds: timeout.wholeMilliseconds)
        case .closed(let reason): return .connectionLost(endpoint: endpoint.description, reason: reason)
        }
    }
}
