import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Saving the index at close and reading it back at open (see `IndexSnapshot`).
///
/// The lock file holds a clean mark only between a close that wrote the snapshot and the next open:
/// the mark names the snapshot's inode and the directory's inode and modification time just after
/// the snapshot was renamed into place. Open erases the mark before it uses the snapshot, and any
/// change to the directory's names (a write, a remove, a file deleted by hand) moves its
/// modification time, so a snapshot is used only when nothing can have changed since it was written.
/// After a crash (kill -9) the mark is absent and the directory is scanned.
extension DiskCache {
    /// Reads the snapshot if the lock file's clean mark matches it and the directory; erases the
    /// mark in any case. Nil means scan.
    func readSnapshot(lock descriptor: Int32) -> DiskRecords? {
        var markBytes = [UInt8](repeating: 0, count: 128)
        let markLength = markBytes.withUnsafeMutableBytes { buffer in
            (try? POSIX.read(descriptor, into: buffer.baseAddress!, count: buffer.count, offset: 0)) ?? 0
        }
        // Erased first: from here on the cache may change the directory.
        guard ftruncate(descriptor, 0) == 0, markLength > 0 else { return nil }
        let snapshotPath = path + "/" + IndexSnapshot.fileName
        guard let mark = CleanMark(String(decoding: markBytes[..<markLength], as: UTF8.self)),
            let snapshot = POSIX.status(path: snapshotPath), let directory = POSIX.status(path: path),
            mark == CleanMark(snapshot: snapshot, directory: directory)
        else { return nil }
        return Self.decodeMapped(snapshotPath)
    }

    /// Decodes the snapshot through a read-only mapping: no heap copy of it (48 MB at a million
    /// entries) outlives the open. The directory is private (0700) and locked by this instance, so
    /// nothing truncates the file while it is mapped.
    private static func decodeMapped(_ snapshotPath: String) -> DiskRecords? {
        let file = open(snapshotPath, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { return nil }
        defer { POSIX.closeDescriptor(file) }
        guard let info = try? POSIX.status(file), info.st_size > 0 else { return nil }
        let length = Int(info.st_size)
        guard let mapping = mmap(nil, length, PROT_READ, MAP_PRIVATE, file, 0), mapping != MAP_FAILED else {
            return nil
        }
        defer { munmap(mapping, length) }
        return try? IndexSnapshot.decode(UnsafeRawBufferPointer(start: mapping, count: length))
    }

    /// Writes the snapshot and then the clean mark, when the index holds at least
    /// `indexSnapshotMinimumCount` entries; otherwise removes any old snapshot. A failure leaves no
    /// mark, so the next open scans.
    func saveSnapshot(lock descriptor: Int32) {
        let snapshotPath = path + "/" + IndexSnapshot.fileName
        let bytes = state.withLock { index -> [UInt8]? in
            index.records.count >= configuration.indexSnapshotMinimumCount ? IndexSnapshot.encode(index.records) : nil
        }
        guard let bytes else {
            unlink(snapshotPath)
            return
        }
        let temporaryPath = snapshotPath + Self.temporarySuffix
        let file = open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard file >= 0 else { return }
        let nothing = UnsafeRawBufferPointer(start: nil, count: 0)
        let written = bytes.withUnsafeBytes { (try? POSIX.write(file, $0, nothing)) != nil }
        guard POSIX.closeDescriptor(file) == 0, written, rename(temporaryPath, snapshotPath) == 0,
            let snapshot = POSIX.status(path: snapshotPath), let directory = POSIX.status(path: path)
        else {
            unlink(temporaryPath)
            return
        }
        let mark = Array(CleanMark(snapshot: snapshot, directory: directory).description.utf8)
        let markWritten = mark.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) } == mark.count
        if !markWritten { _ = ftruncate(descriptor, 0) }
    }

    /// The lock file's content after a clean close.
    struct CleanMark: Equatable, CustomStringConvertible {
        var snapshotInode: UInt64
        var directoryInode: UInt64
        var directorySeconds: Int
        var directoryNanoseconds: Int

        init(snapshot: stat, directory: stat) {
            snapshotInode = UInt64(snapshot.st_ino)
            directoryInode = UInt64(directory.st_ino)
            directorySeconds = Int(directory.st_mtim.tv_sec)
            directoryNanoseconds = Int(directory.st_mtim.tv_nsec)
        }

        init?(_ text: String) {
            let fields = text.split(separator: " ", omittingEmptySubsequences: false)
            guard fields.count == 6, fields[0] == "clean", fields[1] == "v1", fields[5].hasSuffix("\n"),
                let snapshot = UInt64(fields[2]), let directory = UInt64(fields[3]), let seconds = Int(fields[4]),
                let nanoseconds = Int(fields[5].dropLast())
            else { return nil }
            (snapshotInode, directoryInode) = (snapshot, directory)
            (directorySeconds, directoryNanoseconds) = (seconds, nanoseconds)
        }

        var description: String {
            "clean v1 \(snapshotInode) \(directoryInode) \(directorySeconds) \(directoryNanoseconds)\n"
        }
    }
}
