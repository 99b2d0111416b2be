import CZlib
import Foundation

/// Writes a zip archive in memory: deflated entries (stored when deflate does not help), CRC-32 from
/// zlib, UTF-8 names, no ZIP64 (an archive over 4 GiB is refused).
struct ZipWriter {
    private var body = Data()
    private var directory = Data()
    private var count = 0

    /// Appends `contents` as the entry `name`.
    mutating func add(_ name: String, _ contents: Data) throws {
        guard ZipEntry.isSafePath(name) else { throw DotLottieError.unsafePath(entry: name) }
        let deflated = try ZipDeflater.deflate(contents, entryName: name)
        let (method, stored): (UInt16, Data) = deflated.count < contents.count ? (8, deflated) : (0, contents)
        let checksum = ZipInflater.crc32(of: contents)
        let nameBytes = Data(name.utf8)
        guard body.count + stored.count + nameBytes.count + 30 < Int(UInt32.max), count < 0xFFFF else {
            throw DotLottieError.writeFailed(entry: name, reason: "the archive would need ZIP64")
        }
        let offset = UInt32(body.count)
        // Version 2.0, flag bit 11 (UTF-8 names), DOS time 00:00 on 1980-01-01.
        body.appendLittleEndian(UInt32(0x0403_4B50), UInt16(20), UInt16(0x0800), method, UInt16(0), UInt16(0x21))
        body.appendLittleEndian(checksum, UInt32(stored.count), UInt32(contents.count), UInt16(nameBytes.count))
        body.appendLittleEndian(UInt16(0))
        body.append(nameBytes)
        body.append(stored)
        directory.appendLittleEndian(UInt32(0x0201_4B50), UInt16(20), UInt16(20), UInt16(0x0800), method)
        directory.appendLittleEndian(UInt16(0), UInt16(0x21), checksum, UInt32(stored.count), UInt32(contents.count))
        directory.appendLittleEndian(UInt16(nameBytes.count), UInt16(0), UInt16(0), UInt16(0), UInt16(0))
        directory.appendLittleEndian(UInt32(0), offset)
        directory.append(nameBytes)
        count += 1
    }

    /// The archive: the entries, the central directory and its end record.
    func archive() -> Data {
        var archive = body
        archive.append(directory)
        archive.appendLittleEndian(UInt32(0x0605_4B50), UInt16(0), UInt16(0), UInt16(count), UInt16(count))
        archive.appendLittleEndian(UInt32(directory.count), UInt32(body.count), UInt16(0))
        return archive
    }
}

extension Data {
    /// Appends integers in little-endian byte order, as zip records store them.
    fileprivate mutating func appendLittleEndian(_ values: any FixedWidthInteger...) {
        for value in values { appendOneLittleEndian(value) }
    }

    private mutating func appendOneLittleEndian<Value: FixedWidthInteger>(_ value: Value) {
        for shift in stride(from: 0, to: Value.bitWidth, by: 8) {
            append(UInt8(truncatingIfNeeded: value >> shift))
        }
    }
}

/// Raw-deflate compression (zip method 8) through the system zlib.
enum ZipDeflater {
    /// Compresses `data` into a raw deflate stream at zlib's default level.
    ///
    /// - Throws: `DotLottieError.writeFailed` if zlib refuses (out of memory, input over 4 GiB).
    static func deflate(_ data: Data, entryName: String) throws -> Data {
        guard data.count <= Int(UInt32.max) else {
            throw DotLottieError.writeFailed(entry: entryName, reason: "the entry exceeds 4 GiB")
        }
        var stream = z_stream()
        guard czlib_deflate_init_raw(&stream, Z_DEFAULT_COMPRESSION) == Z_OK else {
            throw DotLottieError.writeFailed(entry: entryName, reason: "zlib could not start deflating")
        }
        defer { deflateEnd(&stream) }
        var output = Data(count: Int(deflateBound(&stream, uLong(data.count))))
        let status = ZlibStream.finish(&stream, input: data, output: &output) { CZlib.deflate(&$0, Z_FINISH) }
        guard status == Z_STREAM_END else {
            let message = stream.msg.map { String(cString: $0) } ?? "zlib status \(status)"
            throw DotLottieError.writeFailed(entry: entryName, reason: message)
        }
        output.count = Int(stream.total_out)
        return output
    }
}
