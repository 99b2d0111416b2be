import Foundation
import SampleOrigin
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Start and stop")
struct LifecycleTests {
    @Test("stop closes every connection, joins every thread and its listener; a second cycle works")
    func stopLeavesNothingRunning() async throws {
        // Given
        let origin = try OriginTestSupport.startedOrigin(["/a": Data("a".utf8)])
        let session = OriginTestSupport.makeSession()
        defer { session.invalidateAndCancel() }
        _ = try await session.fetch(origin.url(for: "/a"))
        let idle = try RawHTTPConnection(port: origin.port)
        try await waitUntil("two connections open") { origin.activeConnectionCount == 2 }
        let firstPort = origin.port
        #expect(Self.processListens(on: firstPort))

        // When
        origin.stop()

        // Then nothing of this process listens on the port any more (a connection test would see whichever
        // listener the kernel gave the free port to next: the suite's other origins start hundreds)
        #expect(origin.runningThreadCount == 0)
        #expect(origin.activeConnectionCount == 0)
        #expect(origin.port == 0)
        #expect(idle.isClosedByServer())
        #expect(!Self.processListens(on: firstPort))

        // And when started again
        try origin.start()
        let (data, response) = try await OriginTestSupport.makeSession().fetch(origin.url(for: "/a"))
        origin.stop()
        #expect(response.statusCode == 200)
        #expect(data == Data("a".utf8))
        #expect(origin.runningThreadCount == 0)
        #expect(origin.activeConnectionCount == 0)
    }

    /// Whether a socket of this process listens on TCP `port`: the listening sockets of /proc/net/tcp and tcp6
    /// on that port whose inodes are among this process's file descriptors.
    static func processListens(on port: Int) -> Bool {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        let inodes = Set(
            descriptors.compactMap { descriptor -> Substring? in
                let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)")
                guard let target, target.hasPrefix("socket:[") else { return nil }
                return Substring(target.dropFirst(8).dropLast())
            })
        return ["/proc/net/tcp", "/proc/net/tcp6"].contains { table in
            // Read to its end: a /proc table says it is 0 bytes long, and holds every socket of the machine.
            let bytes = FileHandle(forReadingAtPath: table).flatMap { try? $0.readToEnd() } ?? Data()
            let text = String(decoding: bytes, as: UTF8.self)
            return text.split(separator: "\n").dropFirst().contains { line in
                // sl local_address rem_address st … inode; st 0A is LISTEN, the port is the local address's hex tail
                let fields = line.split(separator: " ")
                guard fields.count > 9, fields[3] == "0A", let local = fields[1].split(separator: ":").last else {
                    return false
                }
                return Int(local, radix: 16) == port && inodes.contains(fields[9])
            }
        }
    }

    @Test(
        "stop ends a request held at a gate or behind latency at once, without a response",
        arguments: zip(["/gated", "/late"], [SampleOrigin.Behavior(gated: true), .init(latency: .seconds(600))]))
    func stopEndsAHeldRequest(path: String, behavior: SampleOrigin.Behavior) async throws {
        // Given a request the origin holds back
        let origin = try OriginTestSupport.startedOrigin([path: Data("x".utf8)])
        origin.setBehavior(path, behavior)
        let session = OriginTestSupport.makeSession()
        defer { session.invalidateAndCancel() }
        let request = Task { try await session.fetch(origin.url(for: path)) }
        try await origin.waitForInFlight(path: path, count: 1)

        // When
        origin.stop()

        // Then
        let result = await request.result
        #expect(throws: (any Error).self) { try result.get() }
        let record = try #require(origin.requests(for: path).first)
        #expect(record.isFinished)
        #expect(record.status == nil)
        #expect(origin.runningThreadCount == 0)
    }

    @Test("start on a running origin throws alreadyRunning; stop on a stopped one does nothing")
    func startTwice() throws {
        // Given
        let origin = SampleOrigin()
        origin.stop()
        try origin.start()
        defer { origin.stop() }

        // When / Then
        #expect(throws: SampleOriginError.alreadyRunning(port: origin.port)) { try origin.start() }
        #expect(origin.baseURL.absoluteString == "http://127.0.0.1:\(origin.port)")
        #expect(origin.url(for: "a b.png").absoluteString == "http://127.0.0.1:\(origin.port)/a%20b.png")
    }
}
