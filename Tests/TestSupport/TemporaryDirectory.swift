import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A directory under the system's temporary directory, unique to one test, removed on `remove()`.
public struct TemporaryDirectory: Sendable {
    /// The directory's URL.
    public let url: URL

    /// Creates a fresh, empty directory whose name starts with `prefix`.
    public init(_ prefix: String = "MediaAssetsTests") throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A path inside the directory.
    public func appending(_ component: String) -> URL {
        url.appendingPathComponent(component)
    }

    /// Removes the directory and everything in it.
    ///
    /// Walks the tree with `opendir`/`unlinkat` and ignores what vanishes meanwhile: a child process of a
    /// test (an SQLite connection closing its `-wal` and `-shm` files) may still be removing files in it, and
    /// Foundation's `removeItem(at:)` has crashed on a tree that changed under its walk.
    public func remove() {
        Self.removeTree(url.path)
    }

    private static func removeTree(_ path: String) {
        guard let stream = opendir(path) else {
            unlink(path)
            return
        }
        var names: [String] = []
        while let item = readdir(stream) {
            let name = withUnsafeBytes(of: item.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != ".", name != ".." { names.append(name) }
        }
        closedir(stream)
        for name in names {
            let child = path + "/" + name
            var info = stat()
            if lstat(child, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
                removeTree(child)
            } else {
                unlink(child)
            }
        }
        rmdir(path)
    }
}
