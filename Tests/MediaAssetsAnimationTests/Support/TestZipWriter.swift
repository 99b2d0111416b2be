import Foundation

@testable import MediaAssetsAnimation

/// A test-only zip writer (stored and raw-deflate entries through zlib) that can also lie:
/// declared sizes, checksums, methods and compressed bytes can be overridden per entry.
struct TestZipWriter {
    /// How an entry's bytes are stored.
    enum Method {
        case stored
        case deflated
    }

    /// One entry and the lies it tells, if any.
    struct Entry {
        var name: String
        var contents: Data
        var method: Method = .deflated
        var declaredUncompressedSize: Int?
        var declaredCRC: UInt32?
        var declaredMethod: UInt16?
        var compressedOverride: Data?
    }

    private(set) var entries: [Entry] = []

    /// Adds an honest entry.
    mutating func add(_ name: String, _ contents: Data, method: Method = .deflated) {
        entries.append(Entry(name: name, contents: contents, method: method))
    }

    /// Adds an honest entry holding `text` as UTF-8.
    mutating func add(_ name: String, text: String, method: Method = .deflated) {
        add(name, Data(text.utf8), method: method)
    }

    /// Adds an entry with overrides.
    mutating func add(_ entry: Entry) {
        entries.append(entry)
    }

    /// The archive bytes: local headers and data, then the central directory and its end record.
    func archive() -> Data {
        var body = Data()
        var directory = Data()
        for entry in entries {
            let compressed =
                entry.compressedOverride
                ?? (entry.method == .stored ? entry.contents : Self.deflate(entry.contents))
            let crc = entry.declaredCRC ?? Self.crc32(entry.contents)
            let method = entry.declaredMethod ?? (entry.method == .stored ? 0 : 8)
            let size = UInt32(entry.declaredUncompressedSize ?? entry.contents.count)
            let name = Data(entry.name.utf8)
            let offset = UInt32(body.count)
            body.appendLE(UInt32(0x0403_4B50), UInt16(20), UInt16(0x0800), method, UInt16(0), UInt16(0x21))
            body.appendLE(crc, UInt32(compressed.count), size, UInt16(name.count), UInt16(0))
            body.append(name)
            body.append(compressed)
            directory.appendLE(UInt32(0x0201_4B50), UInt16(20), UInt16(20), UInt16(0x0800), method)
            directory.appendLE(UInt16(0), UInt16(0x21), crc, UInt32(compressed.count), size, UInt16(name.count))
            directory.appendLE(UInt16(0), UInt16(0), UInt16(0), UInt16(0), UInt32(0), offset)
            directory.append(name)
        }
        var archive = body
        archive.append(directory)
        archive.appendLE(UInt32(0x0605_4B50), UInt16(0), UInt16(0), UInt16(entries.count), UInt16(entries.count))
        archive.appendLE(UInt32(directory.count), UInt32(body.count), UInt16(0))
        return archive
    }

    /// Raw deflate (no zlib header), as zip method 8 stores it: the package's own zlib deflater.
    static func deflate(_ data: Data) -> Data {
        (try? ZipDeflater.deflate(data, entryName: "test")) ?? Data()
    }

    static func crc32(_ data: Data) -> UInt32 {
        ZipInflater.crc32(of: data)
    }
}

extension Data {
    /// Appends integers in little-endian byte order.
    mutating func appendLE(_ values: any FixedWidthInteger...) {
        for value in values { appendOneLE(value) }
    }

    private mutating func appendOneLE<Value: FixedWidthInteger>(_ value: Value) {
        for shift in 0..<(Value.bitWidth / 8) {
            append(UInt8(truncatingIfNeeded: value >> (shift * 8)))
        }
    }
}
