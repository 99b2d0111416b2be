import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Thin, error-checked wrappers over the POSIX calls the disk cache makes, and the calls the package's other modules
/// reach through it: one place that says how each platform's C library is imported.
package enum POSIX {
    struct Failure: Error, CustomStringConvertible {
        var call: String
        var code: Int32
        var description: String { "\(call): \(errnoDescription(code))" }
    }

    /// Reads exactly `count` bytes at `offset` unless the file ends first; returns the bytes read.
    static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawPointer, count: Int, offset: Int) throws(Failure)
        -> Int
    {
        var done = 0
        while done < count {
            let result = pread(descriptor, buffer + done, count - done, off_t(offset + done))
            if result < 0 {
                if errno == EINTR { continue }
                throw Failure(call: "pread", code: errno)
            }
            if result == 0 { break }
            done += result
        }
        return done
    }

    /// Writes all of `first` then all of `second` (one `writev` when it can).
    static func write(_ descriptor: Int32, _ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer)
        throws(Failure)
    {
        var pieces = [first, second].filter { $0.count > 0 }
        while !pieces.isEmpty {
            var vectors = pieces.map {
                iovec(iov_base: UnsafeMutableRawPointer(mutating: $0.baseAddress), iov_len: $0.count)
            }
            let written = writev(descriptor, &vectors, Int32(vectors.count))
            if written < 0 {
                if errno == EINTR { continue }
                throw Failure(call: "writev", code: errno)
            }
            var remaining = written
            while remaining > 0, let piece = pieces.first {
                if remaining >= piece.count {
                    remaining -= piece.count
                    pieces.removeFirst()
                } else {
                    pieces[0] = UnsafeRawBufferPointer(rebasing: piece[remaining...])
                    remaining = 0
                }
            }
        }
    }

    /// Writes all of `bytes` at `offset` (`pwrite`, resumed after a short write).
    static func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, offset: Int) throws(Failure) {
        var done = 0
        while done < bytes.count {
            let result = pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done))
            if result < 0 {
                if errno == EINTR { continue }
                throw Failure(call: "pwrite", code: errno)
            }
            done += result
        }
    }

    /// Closes a descriptor; returns 0 or -1 with `errno` set, as `close(2)` does.
    @discardableResult
    static func closeDescriptor(_ descriptor: Int32) -> Int32 {
        close(descriptor)
    }

    /// The file's status.
    static func status(_ descriptor: Int32) throws(Failure) -> stat {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw Failure(call: "fstat", code: errno) }
        return info
    }

    /// The status of `path`, or nil if it does not exist.
    static func status(path: String) -> stat? {
        var info = stat()
        return stat(path, &info) == 0 ? info : nil
    }

    /// `UTIME_OMIT` from <sys/stat.h>, which Swift does not import (a macro expression).
    private static let utimeOmit = (1 << 30) - 2

    /// Sets the modification time of `path` (leaving the access time).
    static func setModificationTime(path: String, _ date: Date) {
        var times = modificationTimes(date)
        _ = utimensat(AT_FDCWD, path, &times, 0)
    }

    /// Sets the modification time of an open file (leaving the access time).
    static func setModificationTime(_ descriptor: Int32, _ date: Date) {
        var times = modificationTimes(date)
        _ = futimens(descriptor, &times)
    }

    private static func modificationTimes(_ date: Date) -> [timespec] {
        let seconds = date.timeIntervalSince1970
        let whole = seconds.rounded(.down)
        return [
            timespec(tv_sec: 0, tv_nsec: utimeOmit),
            timespec(tv_sec: Int(whole), tv_nsec: Int((seconds - whole) * 1e9)),
        ]
    }

    /// The modification time of a `stat` result.
    static func modificationDate(_ info: stat) -> Date {
        #if canImport(Darwin)
        date(info.st_mtimespec)
        #else
        date(info.st_mtim)
        #endif
    }

    /// The status change time of a `stat` result: set by the kernel on every change to the file, its
    /// contents or its times, and never settable by a program.
    static func statusChangeDate(_ info: stat) -> Date {
        #if canImport(Darwin)
        date(info.st_ctimespec)
        #else
        date(info.st_ctim)
        #endif
    }

    private static func date(_ time: timespec) -> Date {
        Date(timeIntervalSince1970: Double(time.tv_sec) + Double(time.tv_nsec) / 1e9)
    }

    /// The names in a directory (excluding `.` and `..`).
    static func directoryNames(_ path: String) throws(Failure) -> [String] {
        guard let directory = opendir(path) else { throw Failure(call: "opendir", code: errno) }
        defer { closedir(directory) }
        var names: [String] = []
        while let item = readdir(directory) {
            let name = withName(of: item) { name, _ in String(cString: name) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Calls `body` with the NUL-terminated name of the directory entry `item` and its bytes (without
    /// the NUL), read within the entry's record.
    ///
    /// `d_name` is declared as 256 bytes, but a record returned by `readdir` holds only its name, its
    /// NUL and padding up to `d_reclen`: loading `item.pointee` (or `d_name` whole) copies past a short
    /// record, which at the end of the stream's buffer is past the end of a mapped page.
    static func withName<T>(
        of item: UnsafePointer<dirent>, _ body: (UnsafePointer<CChar>, UnsafeRawBufferPointer) throws -> T
    ) rethrows -> T {
        let nameOffset = MemoryLayout<dirent>.offset(of: \.d_name)!
        let recordLength = Int(item.pointer(to: \.d_reclen)!.pointee)
        let name = (UnsafeRawPointer(item) + nameOffset).assumingMemoryBound(to: CChar.self)
        let length = strnlen(name, max(0, recordLength - nameOffset))
        return try body(name, UnsafeRawBufferPointer(start: name, count: length))
    }
}

extension POSIX {
    /// `close(2)`, for types with a `close()` of their own (SQLite's backend, the Redis socket).
    @discardableResult
    package static func close(_ descriptor: Int32) -> Int32 {
        #if canImport(Glibc)
        Glibc.close(descriptor)
        #else
        Darwin.close(descriptor)
        #endif
    }

    /// `connect(2)`.
    package static func connect(_ descriptor: Int32, _ address: UnsafePointer<sockaddr>?, _ length: socklen_t)
        -> Int32
    {
        #if canImport(Glibc)
        Glibc.connect(descriptor, address, length)
        #else
        Darwin.connect(descriptor, address, length)
        #endif
    }

    /// `send(2)`.
    package static func send(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int, _ flags: Int32) -> Int {
        #if canImport(Glibc)
        Glibc.send(descriptor, bytes, count, flags)
        #else
        Darwin.send(descriptor, bytes, count, flags)
        #endif
    }

    /// `shutdown(2)`.
    @discardableResult
    package static func shutdown(_ descriptor: Int32, _ how: Int32) -> Int32 {
        #if canImport(Glibc)
        Glibc.shutdown(descriptor, how)
        #else
        Darwin.shutdown(descriptor, how)
        #endif
    }
}
