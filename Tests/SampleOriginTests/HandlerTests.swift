import Foundation
import MediaAssetsHTTPServer
import SampleOrigin
import Synchronization
import TestSupport
import Testing

@Suite struct HandlerTests {
    @Test func aHandlerAnswersUnregisteredPathsAndRegisteredOnesStillWin() throws {
        // Given an origin with one resource and a handler echoing the path and the resolved range
        let origin = try OriginTestSupport.startedOrigin(["/a": Data("fine".utf8)])
        defer { origin.stop() }
        origin.setHandler { request in
            let range = request.byteRange(forLength: 100).map { "\($0.lowerBound)-\($0.upperBound)" } ?? "whole"
            let body = Data("\(request.path) \(range)".utf8)
            return .init(status: 200, headers: [("Content-Type", "text/plain")], body: body)
        }

        // When both are asked for
        let handled = try RawHTTPConnection(port: origin.port)
        handled.send("GET /b?x=1 HTTP/1.1\r\nHost: x\r\nRange: bytes=-10\r\n\r\n")
        let handledResponse = try handled.readResponse()
        let registered = try RawHTTPConnection(port: origin.port)
        registered.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n")

        // Then the handler answered the unregistered path, and the resource its own
        #expect(handledResponse.status == 200)
        #expect(String(decoding: handledResponse.body, as: UTF8.self) == "/b 90-100")
        #expect(try registered.readResponse().body == Data("fine".utf8))
        #expect(origin.requestCount(for: "/b") == 1)
    }

    @Test func connectionsOverTheBoundAre503() throws {
        // Given an origin that serves at most one connection, with one open
        let origin = try OriginTestSupport.startedOrigin(["/a": Data("fine".utf8)])
        defer { origin.stop() }
        origin.maximumConnections = 1
        let first = try RawHTTPConnection(port: origin.port)
        first.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try first.readResponse()

        // When a second connection comes
        let second = try RawHTTPConnection(port: origin.port)
        second.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n")

        // Then it is refused with 503 while the first still works
        #expect(try second.readResponse().status == 503)
        first.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try first.readResponse().status == 200)
    }

    @Test func seededMutationsNeverCrashTheRequestParser() {
        // Given valid request heads
        let seeds = [
            "GET /p/aHR0cDovLzEyNy4wLjAuMS9h/a.mp4 HTTP/1.1\r\nHost: 127.0.0.1\r\nRange: bytes=0-99\r\n",
            "HEAD /a?b=c HTTP/1.0\r\nConnection: keep-alive\r\nIf-Range: \"x\"\r\nContent-Length: 0\r\n",
        ].map { Array($0.utf8) }
        var generator = SeededGenerator(seed: 0x4854_5450)

        // When 2,000 mutations of them are parsed
        for round in 0..<2_000 {
            var bytes = seeds[round % seeds.count]
            for _ in 0...Int.random(in: 0..<4, using: &generator) {
                guard !bytes.isEmpty else { break }
                let position = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<4, using: &generator) {
                case 0: bytes[position] = UInt8.random(in: 0...255, using: &generator)
                case 1: bytes.removeSubrange(position...)
                case 2: bytes.insert(contentsOf: Array(":\r\n -=%".utf8).shuffled(using: &generator), at: position)
                default: bytes.insert(contentsOf: bytes[position...].prefix(32), at: position)
                }
            }
            parseHTTPRequestHeadForFuzzing(Data(bytes))
        }

        // Then nothing crashed: reaching this line is the assertion
        #expect(seeds.count == 2)
    }
}
