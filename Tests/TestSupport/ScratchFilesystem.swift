import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A size-limited tmpfs mounted on a fresh temporary directory: a real filesystem a test can fill
/// up (ENOSPC) or remount read-only (EROFS), which root's permissions cannot bypass.
///
/// Mounting needs root with `CAP_SYS_ADMIN` (CI's container has it); tests that need one are
/// `.enabled(if: ScratchFilesystem.isAvailable, ScratchFilesystem.requirement)`.
public struct ScratchFilesystem: Sendable {
    /// The mount point.
    public let url: URL
    private let directory: TemporaryDirectory

    /// Why a test needing a scratch filesystem is skipped where mounting is not allowed.
    public static let requirement: Comment =
        "needs root with CAP_SYS_ADMIN to mount a size-limited tmpfs (run as root in a privileged container)"

    /// Whether this process may mount a tmpfs here (checked once, by mounting one).
    public static let isAvailable: Bool = {
        guard geteuid() == 0, let probe = try? ScratchFilesystem(bytes: 64 << 10) else { return false }
        probe.remove()
        return true
    }()

    /// Mounts a tmpfs of `bytes` (rounded up to whole pages by the kernel).
    public init(bytes: Int) throws {
        directory = try TemporaryDirectory("scratchfs")
        url = directory.url
        try Self.run("/bin/mount", "-t", "tmpfs", "-o", "size=\(bytes),mode=0700", "tmpfs", url.path)
    }

    /// A path inside the filesystem.
    public func appending(_ component: String) -> URL { url.appendingPathComponent(component) }

    /// Remounts the filesystem read-only (`readOnly`) or read-write; its files stay.
    public func remount(readOnly: Bool) throws {
        try Self.run("/bin/mount", "-o", readOnly ? "remount,ro" : "remount,rw", url.path)
    }

    /// Unmounts (lazily, so a file still open does not keep it mounted) and removes the mount point.
    public func remove() {
        try? Self.run("/bin/umount", "-l", url.path)
        directory.remove()
    }

    /// The free bytes left on the filesystem.
    public func freeBytes() -> Int {
        var info = statvfs()
        guard statvfs(url.path, &info) == 0 else { return 0 }
        return Int(info.f_bavail) * Int(info.f_frsize)
    }

    private static func run(_ tool: String, _ arguments: String...) throws {
        let outcome = try ChildProcess.run(URL(fileURLWithPath: tool), arguments)
        guard outcome.status == 0 else {
            throw CocoaError(
                .fileWriteUnknown,
                userInfo: [NSLocalizedDescriptionKey: "\(tool) \(arguments) failed: \(outcome.output)"])
        }
    }
}
