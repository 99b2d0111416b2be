import Foundation
import TestSupport
import Testing

@testable import MediaAssets

#if canImport(Glibc)
import Glibc
#endif

/// Names of directory entries are read within their records: `d_name` is declared as 256 bytes, but a
/// short record at the end of `readdir`'s buffer ends long before that.
@Suite("Directory entry names")
struct DirectoryEntryNameTests {
    @Test func aShortRecordAtTheEndOfAMappedPageIsReadWithinItself() throws {
        // Given a 24-byte record, as the kernel lays out a four-letter name, ending exactly where a
        // mapped page meets an inaccessible one (copying the whole 256-byte d_name would fault)
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let mapping = try #require(
            mmap(nil, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), "mmap")
        try #require(mapping != MAP_FAILED)
        defer { munmap(mapping, 2 * page) }
        try #require(mprotect(mapping + page, page, PROT_NONE) == 0)
        let nameOffset = MemoryLayout<dirent>.offset(of: \.d_name)!
        let recordLength = (nameOffset + 5 + 7) / 8 * 8
        let record = mapping + page - recordLength
        memset(record, 0, recordLength)
        record.storeBytes(
            of: UInt16(recordLength), toByteOffset: MemoryLayout<dirent>.offset(of: \.d_reclen)!, as: UInt16.self)
        for (index, byte) in "abcd".utf8.enumerated() {
            record.storeBytes(of: byte, toByteOffset: nameOffset + index, as: UInt8.self)
        }

        // When its name is read
        let item = UnsafePointer(record.assumingMemoryBound(to: dirent.self))
        let (name, bytes) = POSIX.withName(of: item) { name, bytes in (String(cString: name), Array(bytes)) }

        // Then it is the name, read without touching the next page
        #expect(name == "abcd")
        #expect(bytes == Array("abcd".utf8))
    }

    @Test func listsADirectoryOfManyShortNames() throws {
        // Given more one- to four-letter names than one getdents buffer holds (each record 24 bytes)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let names = (0..<3_000).map { String($0, radix: 36) }
        for name in names {
            let descriptor = open(directory.url.appendingPathComponent(name).path, O_WRONLY | O_CREAT, 0o600)
            try #require(descriptor >= 0)
            close(descriptor)
        }

        // When it is listed, then every name comes back whole
        #expect(Set(try POSIX.directoryNames(directory.url.path)) == Set(names))
    }
}
