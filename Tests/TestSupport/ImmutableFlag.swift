import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Makes a file or directory immutable (`chattr +i`): it cannot be written, and nothing in a
/// directory can be created, renamed or removed, even by root, whose permissions bypass a mode of
/// 0400 or 0500. The tests' read-only cache directory and database file.
///
/// A user other than root gets the same by mode (0500 for a directory, 0400 for a file). Root needs
/// `CAP_LINUX_IMMUTABLE` and `chattr` (Debian package e2fsprogs); tests that need it are
/// `.enabled(if: ImmutableFlag.isAvailable, ImmutableFlag.requirement)`.
public enum ImmutableFlag {
    /// Why a test needing an immutable directory is skipped.
    public static let requirement: Comment =
        "needs root with CAP_LINUX_IMMUTABLE and chattr (install e2fsprogs) to make a file read-only"

    /// Whether `chattr +i` works here (checked once, on a scratch directory).
    public static let isAvailable: Bool = {
        guard let probe = try? TemporaryDirectory("immutable-probe") else { return false }
        defer { probe.remove() }
        guard (try? set(probe.url, immutable: true)) != nil else { return false }
        try? set(probe.url, immutable: false)
        return true
    }()

    /// Sets or clears the immutable flag of `url` (for a user other than root: its write permission).
    public static func set(_ url: URL, immutable: Bool) throws {
        guard geteuid() == 0 else {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
            let mode = (isDirectory.boolValue ? 0o500 : 0o400) | (immutable ? 0 : 0o200)
            guard chmod(url.path, mode_t(mode)) == 0 else {
                throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: url.path])
            }
            return
        }
        let chattr = URL(fileURLWithPath: "/usr/bin/chattr")
        guard try ChildProcess.run(chattr, [immutable ? "+i" : "-i", url.path]).status == 0 else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: url.path])
        }
    }
}
