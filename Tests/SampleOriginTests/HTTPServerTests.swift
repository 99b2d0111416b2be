import Foundation
import MediaAssetsHTTPServer
import Synchronization
import TestSupport
import Testing

/// Holds handlers until released, counting how many wait and how many saw their task cancelled.
private final class HandlerGate: Sendable {
    private struct State {
        var waiting: [CheckedContinuation<Void, Never>] = []
        var arrived = 0
        var cancelled = 0
        var isOpen = false
    }

    private let state = Mutex(State())

    var arrived: Int { state.withLock { $0.arrived } }
    var cancelled: Int { state.withLock { $0.cancelled } }

    /// Waits until `open()`, or until the task is cancelled (counted).
    func pass() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let goes = state.withLock { state -> Bool in
                    state.arrived += 1
                    if state.isOpen || Task.isCancelled { return true }
                    state.waiting.append(continuation)
                    return false
                }
                if goes { continuation.resume() }
            }
        } onCancel: {
            let waiting = state.withLock { state in
                state.cancelled += 1
                defer { state.waiting = [] }
                return state.waiting
            }
            for continuation in waiting { continuation.resume() }
        }
    }

    func open() {
        let waiting = state.withLock { state in
            state.isOpen = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }
}

@Suite struct HTTPServerTests {
    @Test func manyConnectionsWaitAtOnceOnOneThread() async throws {
        // Given a server whose handler waits at a gate before answering
        let gate = HandlerGate()
        let server = HTTPServer { request, writer in
            await gate.pass()
            let body = Data(request.path.utf8)
            try? await writer.writeHead(status: 200, headers: [("Content-Length", "\(body.count)")])
            try? await writer.write(body)
        }
        try server.start()
        defer { server.stop() }

        // When 60 clients each send a request on a connection of their own
        let clients = try (0..<60).map { _ in try RawHTTPConnection(port: server.port) }
        for (index, client) in clients.enumerated() { client.send("GET /c\(index) HTTP/1.1\r\nHost: x\r\n\r\n") }
        try await waitUntil("60 handlers waiting") { gate.arrived == 60 }

        // Then all 60 wait at once on the server's one thread, and each gets its answer once released
        #expect(server.runningThreadCount == 1)
        #expect(server.activeConnectionCount == 60)
        gate.open()
        for (index, client) in clients.enumerated() {
            let response = try client.readResponse()
            #expect(response.status == 200 && response.body == Data("/c\(index)".utf8))
        }
        #expect(server.requestCount == 60)
    }

    @Test func aClientHangingUpCancelsItsHandler() async throws {
        // Given a handler waiting at a closed gate for a client's request
        let gate = HandlerGate()
        let server = HTTPServer { _, writer in
            await gate.pass()
            try? await writer.writeHead(status: 204, headers: [("Content-Length", "0")])
        }
        try server.start()
        defer { server.stop() }
        var client: RawHTTPConnection? = try RawHTTPConnection(port: server.port)
        client?.send("GET /held HTTP/1.1\r\nHost: x\r\n\r\n")
        try await waitUntil("the handler to wait") { gate.arrived == 1 }

        // When the client hangs up
        client = nil

        // Then the handler's task is cancelled, and the connection is gone
        try await waitUntil("the handler to be cancelled") { gate.cancelled == 1 }
        try await waitUntil("the connection to close") { server.activeConnectionCount == 0 }
    }

    @Test func aHandlerThatWritesNothingIsAnswered500AndKeepAliveWorksAfterACompleteBody() async throws {
        // Given a server answering /empty with nothing, anything else with a body
        let server = HTTPServer { request, writer in
            guard request.path != "/empty" else { return }
            try? await writer.writeHead(status: 200, headers: [("Content-Length", "2")])
            try? await writer.write(Data("ok".utf8))
        }
        try server.start()
        defer { server.stop() }
        let client = try RawHTTPConnection(port: server.port)

        // When two requests share a connection, then the handler writes nothing for a third
        client.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n")
        let first = try client.readResponse()
        let second = try client.readResponse()
        client.send("GET /empty HTTP/1.1\r\nHost: x\r\n\r\n")
        let third = try client.readResponse()

        // Then both bodies came on one connection, and the empty answer became a 500 that closes it
        #expect(first.body == Data("ok".utf8) && second.body == Data("ok".utf8))
        #expect(server.acceptedConnectionCount == 1)
        #expect(third.status == 500)
        #expect(client.isClosedByServer())
    }
}
