import Foundation
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// nginx on a loopback port, serving the files of a directory as a real web server does (its own `Range`,
/// keep-alive, socket buffers), its access log read for the bytes it sent per path. Started in the foreground
/// (`daemon off`, one process) as this runner's child, and stopped by its process ID.
final class NginxOrigin: Sendable {
    let process: SpawnedProcess
    let port: Int
    let root: URL
    private let accessLog: URL

    private init(process: SpawnedProcess, port: Int, root: URL, accessLog: URL) {
        self.process = process
        self.port = port
        self.root = root
        self.accessLog = accessLog
    }

    /// Starts nginx serving `directory/www`, or returns `nil` when it is not installed.
    static func start(in directory: URL) async throws -> NginxOrigin? {
        guard let nginx = ChildProcess.executable("nginx") ?? existing("/usr/sbin/nginx") else { return nil }
        let root = directory.appendingPathComponent("www")
        let temporary = directory.appendingPathComponent("tmp")
        for folder in [root, temporary] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        let port = try freePort()
        let accessLog = directory.appendingPathComponent("access.log")
        let temporaryPaths = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map {
            "\($0)_temp_path \(temporary.path);"
        }
        let configuration = """
            daemon off;
            master_process off;
            worker_processes 1;
            error_log \(directory.path)/error.log;
            pid \(directory.path)/nginx.pid;
            events { worker_connections 64; }
            http {
                log_format seeded '$uri $status $body_bytes_sent "$http_range"';
                access_log \(accessLog.path) seeded;
                \(temporaryPaths.joined(separator: " "))
                types { video/mp4 mp4; }
                server { listen 127.0.0.1:\(port); root \(root.path); }
            }
            """
        let file = directory.appendingPathComponent("nginx.conf")
        try configuration.write(to: file, atomically: true, encoding: .utf8)
        let process = try SpawnedProcess(
            nginx, ["-p", directory.path, "-e", "\(directory.path)/error.log", "-c", file.path])
        let origin = NginxOrigin(process: process, port: port, root: root, accessLog: accessLog)
        do {
            try await waitUntil("nginx listens on \(port)", timeout: .seconds(20)) {
                guard !process.exit.hasExited, let socket = try? connectedLoopbackSocket(port: port) else {
                    return process.exit.hasExited
                }
                close(socket)
                return true
            }
        } catch {
            await origin.stop()
            throw error
        }
        guard !process.exit.hasExited else {
            await origin.stop()
            let log = (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
            throw Player.Failure(description: "nginx did not start: \(log.suffix(300))")
        }
        return origin
    }

    /// Serves `data` at `/name`.
    func serve(_ name: String, _ data: Data) throws {
        try data.write(to: root.appendingPathComponent(name))
    }

    func url(_ name: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)/\(name)") ?? URL(fileURLWithPath: "/")
    }

    /// The logged requests for `/name` (a request is logged when it ends).
    func requestCount(_ name: String) -> Int { lines(name).count }

    /// The `$body_bytes_sent` of every logged request for `/name`.
    func bytesSent(_ name: String) -> Int {
        lines(name).reduce(0) { total, line in
            total + (line.split(separator: " ").dropFirst(2).first.flatMap { Int($0) } ?? 0)
        }
    }

    private func lines(_ name: String) -> [Substring] {
        ((try? String(contentsOf: accessLog, encoding: .utf8)) ?? "").split(separator: "\n")
            .filter { $0.hasPrefix("/\(name) ") }
    }

    /// Stops nginx (SIGTERM, then SIGKILL past 10 s) and waits for it off the cooperative pool.
    func stop() async {
        if !process.exit.hasExited { kill(process.processIdentifier, SIGTERM) }
        _ = await exitStatus(of: process, timeout: .seconds(10))
    }

    private static func existing(_ path: String) -> URL? {
        FileManager.default.isExecutableFile(atPath: path) ? URL(fileURLWithPath: path) : nil
    }

    /// A port on 127.0.0.1 free a moment ago (bound to 0, read back, closed).
    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Player.Failure(description: "socket: errno \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw Player.Failure(description: "bind: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
