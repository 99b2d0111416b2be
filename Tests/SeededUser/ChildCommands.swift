import Foundation
import MediaAssets
import MediaAssetsImage
import MediaAssetsVideo

/// The runner started again as a child process of the restart scenario, on a cache directory the parent names;
/// the parent kills it with SIGKILL at a moment of its choosing and starts another on the same directory. Each
/// child reports on standard output, a line at a time:
///
///   seeded-user child download DIR URL
///       an offline download (`VideoDownloads`) of URL into DIR: `progress <bytes on disk>` on every update,
///       `done <local file>` when it completed.
///   seeded-user child images DIR STYLE URL...
///       `ImageUtil` asks for each URL in STYLE (`circle:96`, `rect:64`, `original`) through a manager caching in
///       DIR: `done <index> <source>` for each (its picture written to DIR/out/<index>.png), then `flushed` once
///       every write reached the disk.
///
/// Every child ends with `memory base <VmRSS at start> peak <VmHWM>` (bytes). Exit status 1 with `error <text>`.
enum ChildCommands {
    static func run(_ arguments: [String]) async -> Never {
        let base = statusBytes("VmRSS")
        do {
            switch arguments.first {
            case "download" where arguments.count == 3:
                try await download(directory: URL(fileURLWithPath: arguments[1]), url: url(arguments[2]))
            case "images" where arguments.count >= 3:
                try await images(
                    directory: URL(fileURLWithPath: arguments[1]), style: style(arguments[2]),
                    urls: try arguments.dropFirst(3).map(url))
            default:
                Output.error("usage: seeded-user child download DIR URL | images DIR STYLE URL...")
                exit(2)
            }
        } catch {
            Output.line("error \(error)")
            exit(1)
        }
        Output.line("memory base \(base) peak \(statusBytes("VmHWM"))")
        exit(0)
    }

    struct BadArgument: Error, CustomStringConvertible {
        var description: String
    }

    static func url(_ text: String) throws -> URL {
        guard let url = URL(string: text), url.host == "127.0.0.1" else {
            throw BadArgument(description: "not a loopback URL: \(text)")
        }
        return url
    }

    /// `circle:96`, `rect:64` or `original`.
    static func style(_ text: String) throws -> AvatarStyle {
        let parts = text.split(separator: ":")
        switch (parts.first, parts.count == 2 ? Int(parts[1]) : nil) {
        case ("circle"?, let size?): return .circle(diameter: size)
        case ("rect"?, let size?): return .rectangle(size: .square(size))
        case ("original"?, nil): return .original
        default: throw BadArgument(description: "not a style: \(text)")
        }
    }

    /// The argument naming `style` for a child.
    static func argument(_ style: AvatarStyle) -> String {
        if style.isOriginal { return "original" }
        let size = style.targetSize?.width ?? 64
        return style.identifier.hasPrefix("circle") ? "circle:\(size)" : "rect:\(size)"
    }

    static func download(directory: URL, url: URL) async throws {
        let manager = try AssetsManager(
            configuration: Limits.childConfiguration(directory: directory.appendingPathComponent("cache")))
        let downloads = try VideoDownloads(
            manager: manager, configuration: .init(directory: directory.appendingPathComponent("downloads")))
        let download = try downloads.enqueue(AssetRequest(url: url))
        let watcher = Task {
            for await update in downloads.updates(of: download.id) {
                Output.line("progress \(update.progress.bytesDownloaded)")
            }
        }
        let finished = try await downloads.waitUntilFinished(download.id)
        watcher.cancel()
        Output.line("done \(finished.localURL.path)")
    }

    static func images(directory: URL, style: AvatarStyle, urls: [URL]) async throws {
        let manager = try AssetsManager(
            configuration: Limits.childConfiguration(directory: directory.appendingPathComponent("cache")))
        let util = ImageUtil(manager: manager)
        let out = directory.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        try await withThrowingTaskGroup(of: (Int, Image, AssetSource).self) { group in
            var next = 0
            func add() {
                guard next < urls.count else { return }
                let index = next
                next += 1
                group.addTask {
                    let result = try await util.imageResult(for: AssetRequest(url: urls[index]), style: style)
                    return (index, result.value, result.source)
                }
            }
            for _ in 0..<4 { add() }
            while let (index, image, source) = try await group.next() {
                try ImageEncoder.png(image).write(to: out.appendingPathComponent("\(index).png"))
                Output.line("done \(index) \(source)")
                add()
            }
        }
        await manager.waitForPendingWrites()
        Output.line("flushed")
        await manager.shutdown()
    }
}
