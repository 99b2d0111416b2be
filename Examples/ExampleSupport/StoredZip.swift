import CZlib
import Foundation

/// Writes a zip archive of stored (uncompressed) entries: enough for a sample dotLottie file.
///
/// Only the container is written here; the checksum is zlib's `crc32`. Sizes are those of small
/// generated files (well under 4 GiB, under 65,536 entries).
enum StoredZip {
    /// The archive holding `files` in order.
    static func archive(_ files: [(name: String, data: Data)]) -> Data {
        var archive = LittleEndianBytes()
        var directory = LittleEndianBytes()
        for (name, data) in files {
            let nameBytes = Data(name.utf8)
            let checksum = data.withUnsafeBytes { bytes in
                UInt32(truncatingIfNeeded: crc32(0, bytes.bindMemory(to: Bytef.self).baseAddress, uInt(bytes.count)))
            }
            let offset = archive.data.count
            // Local file header: version 2.0, no flags, method 0 (stored), time 0, date 1980-01-01.
            archive.write32(0x0403_4B50)
            archive.write16(20, 0, 0, 0, 0x21)
            archive.write32(checksum, UInt32(data.count), UInt32(data.count))
            archive.write16(nameBytes.count, 0)
            archive.data.append(nameBytes)
            archive.data.append(data)
            // The entry's central directory record.
            directory.write32(0x0201_4B50)
            directory.write16(20, 20, 0, 0, 0, 0x21)
            directory.write32(checksum, UInt32(data.count), UInt32(data.count))
            directory.write16(nameBytes.count, 0, 0, 0, 0)
            directory.write32(0, UInt32(offset))
            directory.data.append(nameBytes)
        }
        let directoryOffset = archive.data.count
        archive.data.append(directory.data)
        // End of central directory.
        archive.write32(0x0605_4B50)
        archive.write16(0, 0, files.count, files.count)
        archive.write32(UInt32(directory.data.count), UInt32(directoryOffset))
        archive.write16(0)
        return archive.data
    }
}

/// Bytes written little-endian, as zip stores its numbers.
private struct LittleEndianBytes {
    var data = Data()

    mutating func write16(_ values: Int...) {
        for value in values {
            data.append(UInt8(truncatingIfNeeded: value))
            data.append(UInt8(truncatingIfNeeded: value >> 8))
        }
    }

    mutating func write32(_ values: UInt32...) {
        for value in values {
            for shift in stride(from: 0, to: 32, by: 8) { data.append(UInt8(truncatingIfNeeded: value >> shift)) }
        }
    }
}
