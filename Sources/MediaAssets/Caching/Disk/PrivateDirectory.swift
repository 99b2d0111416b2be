import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Creates a cache's directory, and every missing parent, with mode 0700, and says precisely why
/// it cannot: which path component is a regular file, or which one the system refused, and why.
///
/// `FileManager` reports a parent that is a regular file as "NSCocoaErrorDomain error 512"; this
/// names the file instead. Shared by `DiskCache` and the SQLite backend.
package enum PrivateDirectory {
    /// Creates `path` and its missing parents (mode 0700); an existing directory is fine.
    ///
    /// - Throws: `AssetsError.directoryUnavailable` naming the path that failed and why.
    package static func create(_ path: String) throws(AssetsError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            prefix += "/" + component
            if mkdir(prefix, 0o700) == 0 { continue }
            let code = errno
            var info = stat()
            guard code == EEXIST || code == EACCES || code == EROFS, stat(prefix, &info) == 0 else {
                throw .directoryUnavailable(path: path, reason: "cannot create \(prefix): \(errnoDescription(code))")
            }
            guard info.st_mode & S_IFMT == S_IFDIR else {
                throw .directoryUnavailable(path: path, reason: "\(prefix) is a file, not a directory")
            }
        }
    }
}
