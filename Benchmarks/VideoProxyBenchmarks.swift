import Foundation
import MediaAssets
import MediaAssetsVideo
import MediaAssetsVideoProxy
import SampleOrigin

#if canImport(Glibc)
import Glibc
#endif

// Rows of issue 22: a 256 MiB file read whole (`Range: bytes=0-`, as players ask first) through the proxy,
// cold (empty cache, fresh process) and warm (the same proxy again), against the origin alone in the same
// run: nginx when installed (sendfile, as a CDN edge serves), else SampleOrigin. The proxy runs in a child
// process (`benchmarks --video-proxy-child URL CACHE`), so its peak memory is its own.

private let fileSize = 256 << 20
private let repetitions = 3

func runVideoProxyBenchmarks(table: BenchmarkTable) async throws {
    let directory = try makeScratchDirectory("video-proxy-256")
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("movie.mp4")
    try makeFile(file, size: fileSize)
    let origin = try BenchmarkOrigin.start(serving: file, scratch: directory)
    defer { origin.stop() }
    print("video-proxy: origin is \(origin.name)")

    var direct: [ClientTiming] = []
    for _ in 0..<repetitions { direct.append(try await ClientTiming.read(origin.url)) }
    var cold: [ClientTiming] = []
    var warm: [ClientTiming] = []
    var peaks: [Double] = []
    for round in 0..<repetitions {
        let child = try ProxyChild.start(origin: origin.url, cache: directory.appendingPathComponent("cache-\(round)"))
        defer { child.stop() }
        let idle = try child.memory("VmRSS")
        cold.append(try await ClientTiming.read(child.proxyURL))
        peaks.append(Double(try child.memory("VmHWM") - idle))
        warm.append(try await ClientTiming.read(child.proxyURL))
    }
    let originFirst = median(direct.map(\.firstByte))
    let originTotal = median(direct.map(\.total))
    table.add(
        "video-proxy: 256 MiB cold, first byte", unit: "ms", median: median(cold.map(\.firstByte)) * 1e3,
        baseline: "\(origin.name) alone, first byte", baselineMedian: originFirst * 1e3,
        target: (1.5 * originFirst + 0.050) / originFirst)
    table.add(
        "video-proxy: 256 MiB cold, total", unit: "ms", median: median(cold.map(\.total)) * 1e3,
        baseline: "\(origin.name) alone, total", baselineMedian: originTotal * 1e3)
    table.add(
        "video-proxy: 256 MiB warm, first byte", unit: "ms", median: median(warm.map(\.firstByte)) * 1e3,
        baseline: "\(origin.name) alone, first byte", baselineMedian: originFirst * 1e3,
        target: 0.010 / originFirst)
    table.add(
        "video-proxy: 256 MiB warm, total", unit: "ms", median: median(warm.map(\.total)) * 1e3,
        baseline: "\(origin.name) alone, total", baselineMedian: originTotal * 1e3, target: 1.5)
    table.add(
        "video-proxy: peak memory above idle, cold read", unit: "MiB", median: median(peaks) / 1_048_576,
        baseline: "the file (what buffering it would hold)", baselineMedian: Double(fileSize) / 1_048_576,
        target: 64.0 / 256.0)
}

/// The proxy's side: `benchmarks --video-proxy-child URL CACHE` prints the proxy URL, then serves until
/// SIGTERM.
func runVideoProxyChild(origin: String, cache: String) async throws {
    guard let url = URL(string: origin) else { throw CocoaError(.fileReadInvalidFileName) }
    let manager = try AssetsManager(
        configuration: .init(disk: .init(directory: URL(fileURLWithPath: cache), sizeLimit: 1 << 30)))
    let proxy = VideoProxy(video: VideoUtil(manager: manager))
    try proxy.start()
    print(proxy.proxyURL(for: url).absoluteString)
    fflush(nil)
    signal(SIGTERM, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: SIGTERM, queue: .global())
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        source.setEventHandler { continuation.resume() }
        source.resume()
    }
    source.cancel()
    proxy.stop()
}

/// The first byte and the whole of one `Range: bytes=0-` read, by a blocking client on a thread of its own.
private struct ClientTiming {
    var firstByte: Double
    var total: Double

    static func read(_ url: URL) async throws -> ClientTiming {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try readBlocking(url) }) }
        }
    }

    private static func readBlocking(_ url: URL) throws -> ClientTiming {
        let fd = try connectedLoopbackSocket(port: url.port ?? 80)
        defer { close(fd) }
        let request = Array("GET \(url.path) HTTP/1.1\r\nHost: 127.0.0.1\r\nRange: bytes=0-\r\n\r\n".utf8)
        let start = now()
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var head: [UInt8] = []
        var firstByte = 0.0
        var bodyBytes = 0
        var expected: Int?
        while expected.map({ bodyBytes < $0 }) ?? true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw BenchmarkFailure("\(url) closed after \(bodyBytes) body bytes") }
            if firstByte == 0 { firstByte = now() - start }
            if expected == nil {
                head += buffer[0..<count]
                guard
                    let end = head.indices.dropLast(3).first(where: {
                        head[$0] == 13 && head[$0 + 1] == 10 && head[$0 + 2] == 13 && head[$0 + 3] == 10
                    })
                else { continue }
                let text = String(decoding: head[..<end], as: UTF8.self).lowercased()
                let length = text.components(separatedBy: "\r\n").first { $0.hasPrefix("content-length:") }
                expected = length.flatMap { Int($0.dropFirst(15).trimmingCharacters(in: .whitespaces)) }
                bodyBytes = head.count - end - 4
                guard expected == fileSize else { throw BenchmarkFailure("\(url) answered \(text.prefix(200))") }
            } else {
                bodyBytes += count
            }
        }
        return ClientTiming(firstByte: firstByte, total: now() - start)
    }
}

/// `benchmarks --video-proxy-child` in a process of its own.
private struct ProxyChild {
    let process: Process
    let proxyURL: URL

    static func start(origin: URL, cache: URL) throws -> ProxyChild {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["--video-proxy-child", origin.absoluteString, cache.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var line: [UInt8] = []
        while let byte = try output.fileHandleForReading.read(upToCount: 1)?.first, byte != 10 { line.append(byte) }
        guard let url = URL(string: String(decoding: line, as: UTF8.self)) else {
            process.terminate()
            throw BenchmarkFailure("the proxy child printed no URL")
        }
        return ProxyChild(process: process, proxyURL: url)
    }

    /// `VmRSS` or `VmHWM` of the child, in bytes.
    func memory(_ field: String) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)
        let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") } ?? ""
        return (line.split(separator: " ").compactMap { Int($0) }.first ?? 0) * 1_024
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}

/// The origin of the rows: nginx (`/usr/sbin/nginx`) on a port of its own, else a SampleOrigin.
struct BenchmarkOrigin {
    let name: String
    let url: URL
    let stop: () -> Void
    /// The body bytes sent since the last `resetBytesSent()` (nginx's access log, or SampleOrigin's records).
    var bytesSent: () -> Int = { 0 }
    var resetBytesSent: () -> Void = {}

    static func start(serving file: URL, scratch: URL) throws -> BenchmarkOrigin {
        if let nginx = ["/usr/sbin/nginx", "/usr/bin/nginx"].first(where: FileManager.default.isExecutableFile) {
            return try startNginx(nginx, serving: file, scratch: scratch)
        }
        let origin = SampleOrigin()
        let paths = try origin.registerDirectory(file.deletingLastPathComponent(), at: "/media")
        try origin.start()
        return BenchmarkOrigin(
            name: "SampleOrigin", url: origin.url(for: "/media/" + file.lastPathComponent), stop: { origin.stop() },
            bytesSent: { paths.flatMap { origin.requests(for: $0) }.map(\.bodyBytesSent).reduce(0, +) },
            resetBytesSent: { origin.resetLog() })
    }

    private static func startNginx(_ nginx: String, serving file: URL, scratch: URL) throws -> BenchmarkOrigin {
        let prefix = scratch.appendingPathComponent("nginx")
        try FileManager.default.createDirectory(at: prefix, withIntermediateDirectories: true)
        let port = try freeLoopbackPort()
        let configuration = """
            daemon off;
            master_process off;
            worker_processes 1;
            error_log \(prefix.path)/error.log;
            pid \(prefix.path)/nginx.pid;
            events { worker_connections 64; }
            http {
                log_format bytes '$body_bytes_sent';
                access_log \(prefix.path)/bytes.log bytes;
                sendfile on;
                types { video/mp4 mp4; }
                client_body_temp_path \(prefix.path)/body;
                proxy_temp_path \(prefix.path)/proxy;
                fastcgi_temp_path \(prefix.path)/fastcgi;
                uwsgi_temp_path \(prefix.path)/uwsgi;
                scgi_temp_path \(prefix.path)/scgi;
                server {
                    listen 127.0.0.1:\(port);
                    root \(file.deletingLastPathComponent().path);
                }
            }
            """
        let configurationFile = prefix.appendingPathComponent("nginx.conf")
        try Data(configuration.utf8).write(to: configurationFile)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: nginx)
        process.arguments = ["-p", prefix.path, "-c", configurationFile.path, "-e", prefix.path + "/error.log"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let url = URL(string: "http://127.0.0.1:\(port)/\(file.lastPathComponent)")!
        // Up within a few seconds, or not at all.
        for _ in 0..<500 where !canConnectToLoopback(port: port) {
            guard process.isRunning else { break }
            usleep(10_000)
        }
        guard canConnectToLoopback(port: port) else {
            process.terminate()
            throw BenchmarkFailure("nginx did not start (see \(prefix.path)/error.log)")
        }
        let log = prefix.appendingPathComponent("bytes.log")
        return BenchmarkOrigin(
            name: "nginx", url: url,
            stop: {
                // Without a master process nginx may sit out SIGTERM; it gets a moment, then SIGKILL.
                kill(process.processIdentifier, SIGQUIT)
                for _ in 0..<100 where process.isRunning { usleep(20_000) }
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
                process.waitUntilExit()
            },
            bytesSent: {
                let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                return text.split(separator: "\n").compactMap { Int($0) }.reduce(0, +)
            },
            resetBytesSent: { _ = truncate(log.path, 0) })
    }
}

/// 256 MiB of varied bytes, written in 1 MiB blocks.
private func makeFile(_ url: URL, size: Int) throws {
    _ = FileManager.default.createFile(atPath: url.path, contents: nil)
    let handle = try FileHandle(forWritingTo: url)
    defer { try? handle.close() }
    var block = Data(count: 1 << 20)
    for index in 0..<(size >> 20) {
        block.withUnsafeMutableBytes { bytes in
            let words = bytes.bindMemory(to: UInt64.self)
            for word in words.indices { words[word] = UInt64(index &* 2_654_435_761 &+ word) &* 0x9E37_79B9_7F4A_7C15 }
        }
        try handle.write(contentsOf: block)
    }
}

private struct BenchmarkFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
