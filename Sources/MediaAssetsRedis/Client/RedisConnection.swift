import Dispatch
import Foundation
import Synchronization

/// One authenticated connection to one server, shared by the commands of many tasks, with a reader
/// thread of its own.
///
/// A command is written on the caller's thread with a non-blocking send (what the socket does not
/// take at once is written in order by a job on a dispatch queue), and the caller waits for its
/// replies without holding a thread. The reader thread, blocked in `recv`, reads the replies in the
/// order the commands went out and resumes each waiting task: one wake-up per reply, and commands
/// sent meanwhile by other tasks travel pipelined on the same connection.
///
/// After any transport error the connection is broken: every waiting command fails with it (a late
/// reply would otherwise answer the wrong command), the reader thread ends, and the pool opens
/// another connection.
final class RedisConnection: Sendable {
    let endpoint: RedisEndpoint
    private let socket: RedisSocket
    private let readTimeout: Duration
    /// Bytes the socket did not take at once, written by `drain()`; taken before `waiting`.
    private let writer = Mutex(Writer())
    private let waiting = Mutex(Waiting())

    private struct Writer {
        var unsent: [UInt8] = []
        var isDraining = false
    }

    private struct Waiting {
        /// The commands sent and not yet answered, oldest first (from `head` on).
        var queue: [RedisReplies] = []
        var head = 0
        /// Set once the connection broke; commands sent later fail with it.
        var failure: RedisError?

        var count: Int { queue.count - head }

        mutating func popFirst() -> RedisReplies? {
            guard head < queue.count else { return nil }
            defer {
                head += 1
                if head == queue.count {
                    queue.removeAll(keepingCapacity: true)
                    head = 0
                }
            }
            return queue[head]
        }

        mutating func removeAll() -> [RedisReplies] {
            defer {
                queue = []
                head = 0
            }
            return Array(queue[head...])
        }
    }

    private init(endpoint: RedisEndpoint, socket: RedisSocket, readTimeout: Duration) {
        self.endpoint = endpoint
        self.socket = socket
        self.readTimeout = readTimeout
    }

    /// Connects, authenticates and selects the database within `options.connectTimeout`, then
    /// starts the reader thread. Blocking: call it off the cooperative pool.
    static func open(to endpoint: RedisEndpoint, options: RedisClientOptions) throws(RedisError) -> RedisConnection {
        let deadline = ContinuousClock.now + options.connectTimeout
        let socket: RedisSocket
        do {
            socket = try RedisSocket.connect(to: endpoint, deadline: deadline)
        } catch {
            throw error.redisError(endpoint: endpoint, operation: "connect", timeout: options.connectTimeout)
        }
        try handshake(on: socket, endpoint: endpoint, options: options, deadline: deadline)
        // The reader checks the deadlines of waiting commands each time the receive wakes empty.
        let tick = min(max(options.readTimeout / 4, .milliseconds(1)), .milliseconds(250))
        socket.blockReceives(waking: tick)
        let connection = RedisConnection(endpoint: endpoint, socket: socket, readTimeout: options.readTimeout)
        let reader = Thread { connection.readReplies() }
        reader.name = "MediaAssets.Redis \(endpoint)"
        reader.stackSize = 512 << 10
        reader.start()
        return connection
    }

    /// Sends `commands` in one write, after queueing a waiter for their replies; returns it.
    ///
    /// - Throws: The failure of a connection that is already broken.
    func submit(_ commands: [RESPCommand]) throws(RedisError) -> RedisReplies {
        var request: [UInt8] = []
        for command in commands { command.encode(into: &request) }
        let replies = RedisReplies(for: commands, deadline: .now + readTimeout)
        let failure = writer.withLock { writer -> RedisError? in
            // Queued before the bytes go out: the reply may arrive before `send` returns.
            let broken = waiting.withLock { waiting -> RedisError? in
                if let failure = waiting.failure { return failure }
                waiting.queue.append(replies)
                return nil
            }
            if let broken { return broken }
            guard !writer.isDraining else {
                writer.unsent += request
                return nil
            }
            do throws(RedisSocket.Failure) {
                let sent = try socket.sendAvailable(request)
                guard sent < request.count else { return nil }
                writer.unsent = Array(request[sent...])
                writer.isDraining = true
                DispatchQueue.global().async { self.drain() }
            } catch {
                fail(error.redisError(endpoint: endpoint, operation: replies.operation, timeout: readTimeout))
            }
            return nil
        }
        if let failure { throw failure }
        return replies
    }

    /// The commands waiting for replies.
    var waitingCount: Int { waiting.withLock { $0.count } }

    /// Whether the connection broke (or was closed): it takes no more commands.
    var isBroken: Bool { waiting.withLock { $0.failure != nil } }

    /// Closes the connection; waiting commands fail.
    func close() {
        fail(.connectionLost(endpoint: endpoint.description, reason: "the connection was closed"))
    }

    // MARK: Internals

    /// Writes the bytes `submit` left, in order, until none are left (on a dispatch queue: a slow
    /// server makes this wait, bounded by the read timeout, never a task's thread).
    private func drain() {
        while true {
            let bytes = writer.withLock { writer -> [UInt8]? in
                guard !writer.unsent.isEmpty else {
                    writer.isDraining = false
                    return nil
                }
                defer { writer.unsent = [] }
                return writer.unsent
            }
            guard let bytes else { return }
            do throws(RedisSocket.Failure) {
                try socket.send(bytes, until: .now + readTimeout)
            } catch {
                fail(error.redisError(endpoint: endpoint, operation: "a write", timeout: readTimeout))
                writer.withLock {
                    $0.unsent = []
                    $0.isDraining = false
                }
                return
            }
        }
    }

    /// The reader thread: reads replies and hands each to the oldest waiting command, until the
    /// connection breaks.
    private func readReplies() {
        var stream = RESPReplyStream()
        var scratch = [UInt8](repeating: 0, count: 64 << 10)
        while !isBroken {
            let received: Int?
            do throws(RedisSocket.Failure) {
                received = try socket.receive(into: &scratch)
            } catch {
                return fail(error.redisError(endpoint: endpoint, operation: "a read", timeout: readTimeout))
            }
            guard let received else {
                checkDeadline()
                continue
            }
            scratch.withUnsafeBytes { stream.append(raw: UnsafeRawBufferPointer(rebasing: $0[..<received])) }
            do throws(RESPParser.Violation) {
                while let reply = try stream.next() {
                    guard deliver(reply) else {
                        return fail(
                            .protocolViolation(
                                endpoint: endpoint.description, offset: 0, reason: "a reply no command is waiting for"))
                    }
                }
            } catch {
                return fail(
                    .protocolViolation(endpoint: endpoint.description, offset: error.offset, reason: error.reason))
            }
        }
    }

    /// Gives `reply` to the oldest waiting command, resuming it once its replies are complete;
    /// false when no command is waiting.
    private func deliver(_ reply: RESPValue) -> Bool {
        let (oldest, isComplete) = waiting.withLock { waiting -> (RedisReplies?, Bool) in
            guard waiting.head < waiting.queue.count else { return (nil, false) }
            let oldest = waiting.queue[waiting.head]
            guard oldest.append(reply) else { return (oldest, false) }
            _ = waiting.popFirst()
            return (oldest, true)
        }
        if isComplete { oldest?.finish() }
        return oldest != nil
    }

    /// Breaks the connection if the oldest waiting command has waited past its deadline.
    private func checkDeadline() {
        let overdue = waiting.withLock { waiting -> RedisReplies? in
            guard waiting.head < waiting.queue.count, waiting.queue[waiting.head].deadline <= .now else { return nil }
            return waiting.queue[waiting.head]
        }
        guard let overdue else { return }
        fail(
            .timedOut(
                endpoint: endpoint.description, operation: overdue.operation,
                milliseconds: readTimeout.wholeMilliseconds))
    }

    /// Breaks the connection: every waiting command fails with `error` (each timed-out one names
    /// itself), the socket shuts down and the reader thread ends.
    private func fail(_ error: RedisError) {
        let failed = waiting.withLock { waiting -> [RedisReplies]? in
            guard waiting.failure == nil else { return nil }
            waiting.failure = error
            return waiting.removeAll()
        }
        guard let failed else { return }
        socket.shutdown()
        for replies in failed {
            if case .timedOut(let endpoint, _, let milliseconds) = error {
                replies.finish(
                    failing: .timedOut(endpoint: endpoint, operation: replies.operation, milliseconds: milliseconds))
            } else {
                replies.finish(failing: error)
            }
        }
    }

    /// Sends the handshake (AUTH, SELECT) and checks its answers, before the reader starts.
    private static func handshake(
        on socket: RedisSocket, endpoint: RedisEndpoint, options: RedisClientOptions, deadline: ContinuousClock.Instant
    ) throws(RedisError) {
        var commands: [RESPCommand] = []
        if let password = options.password {
            commands.append(
                options.user.map { RESPCommand("AUTH", RESPArgument($0), RESPArgument(password)) }
                    ?? RESPCommand("AUTH", RESPArgument(password)))
        }
        if options.database != 0 { commands.append(RESPCommand("SELECT", RESPArgument(options.database))) }
        guard !commands.isEmpty else { return }
        var request: [UInt8] = []
        for command in commands { command.encode(into: &request) }
        var stream = RESPReplyStream()
        var answers: [RESPValue] = []
        var scratch = [UInt8](repeating: 0, count: 4 << 10)
        do {
            try socket.send(request, until: deadline)
            while answers.count < commands.count {
                while answers.count < commands.count, let reply = try stream.next() { answers.append(reply) }
                guard answers.count < commands.count else { break }
                let count = try socket.receive(into: &scratch, until: deadline)
                scratch.withUnsafeBytes { stream.append(raw: UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            }
        } catch let failure as RedisSocket.Failure {
            throw failure.redisError(endpoint: endpoint, operation: "the handshake", timeout: options.connectTimeout)
        } catch let violation as RESPParser.Violation {
            throw .protocolViolation(endpoint: endpoint.description, offset: violation.offset, reason: violation.reason)
        } catch {
            throw .connectionLost(endpoint: endpoint.description, reason: "\(error)")
        }
        for (command, answer) in zip(commands, answers) {
            guard case .error(let message) = answer else { continue }
            if command.name == "AUTH" {
                throw .authenticationFailed(endpoint: endpoint.description, user: options.user, message: message)
            }
            throw .serverError(endpoint: endpoint.description, command: command.name, message: message)
        }
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
