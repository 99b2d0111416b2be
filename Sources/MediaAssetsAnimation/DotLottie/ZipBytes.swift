import Foundation

/// Bounds-checked little-endian reads from archive bytes; a read past the end throws `corruptArchive`.
struct ZipBytes {
    let data: Data

    var count: Int { data.count }

    func uint16(at offset: Int) throws -> UInt16 {
        let bytes = try slice(at: offset, count: 2)
        return UInt16(bytes[bytes.startIndex]) | UInt16(bytes[bytes.startIndex + 1]) << 8
    }

    func uint32(at offset: Int) throws -> UInt32 {
        let bytes = try slice(at: offset, count: 4)
        var value: UInt32 = 0
        for (shift, byte) in bytes.enumerated() { value |= UInt32(byte) << (8 * UInt32(shift)) }
        return value
    }

    /// The `count` bytes at `offset` (relative to the start of the archive).
    func slice(at offset: Int, count length: Int) throws -> Data {
        guard offset >= 0, length >= 0, offset <= data.count - length else {
            throw DotLottieError.corruptArchive(offset: offset, reason: "a record runs past the end of the archive")
        }
        let start = data.startIndex + offset
        return data[start..<(start + length)]
    }
}
