import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Everything an ``HTTPServer`` shares between its thread and its handlers' tasks, behind one `Mutex`.
///
/// Socket calls made under the lock never block (every descriptor is non-blocking).
struct ServerState {
    enum Phase {
        case stopped
        case running(listenFD: Int32, port: Int, thread: pthread_t?, wakeRead: Int32, wakeWrite: Int32)
    }

    var phase = Phase.stopped
    var isStopping = false
    /// Connections served at once; more are answered 503.
    var maximumConnections: Int
    var connections: [Int: Connection] = [:]
    var nextConnectionID = 0
    /// No connection is accepted before this instant (out of descriptors: back off instead of spinning).
    var acceptPausedUntil: ContinuousClock.Instant?

    // Counters.
    var acceptedConnectionCount = 0
    var rejectedRequestCount = 0
    var requestCount = 0

    /// Connections serving requests (lingering ones, closing after an answer, are not counted).
    var activeConnectionCount: Int { connections.values.filter { !$0.isLingering }.count }

    init(maximumConnections: Int) {
        self.maximumConnections = maximumConnections
    }
}

/// One client connection as the server's thread and its handler see it.
struct Connection {
    enum Phase {
        /// Waiting for (the rest of) a request head; closed when idle past `deadline`.
        case idle(deadline: ContinuousClock.Instant)
        /// A handler is answering a request.
        case responding
        /// Sending what is queued (an error answer), then lingering.
        case closingAfterFlush
        /// Our side is shut down; reading and dropping what the client still sends until `deadline`, so
        /// that closing does not reset a connection whose answer the client has not read yet.
        case lingering(deadline: ContinuousClock.Instant, drained: Int)
    }

    /// A piece of output: bytes, how far they were sent, and whether they are body bytes.
    struct Output {
        var data: Data
        var offset = 0
        var isBody: Bool
    }

    let id: Int
    let fd: Int32
    var input: RequestHeadBuffer
    var phase: Phase
    var output: [Output] = []
    var queuedBytes = 0
    /// The response under way (set when a request's handler starts).
    var response = ResponseProgress()
    var task: Task<Void, Never>?
    /// The peer hung up or a write failed: nothing more can be sent.
    var isBroken = false
    /// A writer waiting for the output to fall below the write buffer size.
    var writerWaiter: CheckedContinuation<Void, Error>?
    /// Waiting for everything queued to be sent (or the connection to break).
    var flushWaiters: [CheckedContinuation<Void, Never>] = []
    /// Waiting for the peer to hang up (or the server to stop).
    var hangUpWaiters: [CheckedContinuation<Void, Never>] = []

    var isLingering: Bool {
        if case .lingering = phase { return true }
        return false
    }

    /// What has gone out of the response under way.
    struct ResponseProgress {
        var isHeadRequest = false
        var keepAliveRequested = false
        var headWritten = false
        var declaredLength: Int?
        var bodyBytesQueued = 0
        var bodyBytesSent = 0
        var closesAfter = false
        var isFinished = false
    }

    /// Sends what the socket takes now; marks the connection broken when the peer is gone.
    mutating func _flush() {
        while !output.isEmpty, !isBroken {
            let transfer = output[0].data.withUnsafeBytes { whole in
                Socket.send(fd, UnsafeRawBufferPointer(rebasing: whole[output[0].offset...]))
            }
            switch transfer {
            case .moved(let count):
                output[0].offset += count
                queuedBytes -= count
                if output[0].isBody { response.bodyBytesSent += count }
                if output[0].offset == output[0].data.count { output.removeFirst() }
            case .wouldBlock:
                return
            case .closed:
                isBroken = true
            }
        }
    }

    /// Takes every waiter out, to be resumed once the lock is released (the connection is done or broken).
    mutating func _takeWaiters(failing: Bool) -> [@Sendable () -> Void] {
        var resumptions: [@Sendable () -> Void] = []
        if let writer = writerWaiter {
            writerWaiter = nil
            resumptions.append {
                if failing { writer.resume(throwing: HTTPServerError.connectionClosed) } else { writer.resume() }
            }
        }
        for waiter in flushWaiters { resumptions.append { waiter.resume() } }
        flushWaiters = []
        for waiter in hangUpWaiters { resumptions.append { waiter.resume() } }
        hangUpWaiters = []
        return resumptions
    }

    /// The waiters to resume after a flush made progress.
    mutating func _takeSatisfiedWaiters(writeBufferSize: Int) -> [@Sendable () -> Void] {
        var resumptions: [@Sendable () -> Void] = []
        if isBroken { return _takeWaiters(failing: true) }
        if queuedBytes <= writeBufferSize / 2, let writer = writerWaiter {
            writerWaiter = nil
            resumptions.append { writer.resume() }
        }
        if output.isEmpty {
            for waiter in flushWaiters { resumptions.append { waiter.resume() } }
            flushWaiters = []
        }
        return resumptions
    }

    /// Whether the connection can carry another request after the response under way.
    var _isReusable: Bool {
        let response = response
        let complete = response.isHeadRequest || response.declaredLength == response.bodyBytesQueued
        return !isBroken && response.keepAliveRequested && !response.closesAfter && complete && output.isEmpty
    }
}
