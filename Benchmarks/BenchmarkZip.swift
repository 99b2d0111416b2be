import CZlib
import Foundation

/// Just enough zip writing and raw inflating for the dotLottie benchmark (the tests have a fuller writer).
enum BenchmarkZip {
    /// A zip of `(name, contents)` entries, each deflated.
    static func archive(_ files: [(name: String, contents: Data)]) -> Data {
        var body = Data()
        var directory = Data()
        for file in files {
            let compressed = deflate(file.contents)
            let crc = file.contents.withUnsafeBytes {
                UInt32(crc32(0, $0.bindMemory(to: Bytef.self).baseAddress, uInt($0.count)))
            }
            let name = Data(file.name.utf8)
            let offset = UInt32(body.count)
            append(&body, [0x0403_4B50], 4)
            append(&body, [20, 0x0800, 8, 0, 0x21], 2)
            append(&body, [crc, UInt32(compressed.count), UInt32(file.contents.count)], 4)
            append(&body, [UInt32(name.count), 0], 2)
            body.append(name)
            body.append(compressed)
            append(&directory, [0x0201_4B50], 4)
            append(&directory, [20, 20, 0x0800, 8, 0, 0x21], 2)
            append(&directory, [crc, UInt32(compressed.count), UInt32(file.contents.count)], 4)
            append(&directory, [UInt32(name.count), 0, 0, 0, 0], 2)
            append(&directory, [0, offset], 4)
            directory.append(name)
        }
        var archive = body + directory
        append(&archive, [0x0605_4B50], 4)
        append(&archive, [0, 0, UInt32(files.count), UInt32(files.count)], 2)
        append(&archive, [UInt32(directory.count), UInt32(body.count)], 4)
        append(&archive, [0], 2)
        return archive
    }

    /// Raw deflate (zip method 8).
    static func deflate(_ data: Data) -> Data {
        var stream = z_stream()
        _ = czlib_deflate_init_raw(&stream, Z_DEFAULT_COMPRESSION)
        defer { deflateEnd(&stream) }
        var output = Data(count: Int(deflateBound(&stream, uLong(data.count))) + 64)
        finish(&stream, from: data, into: &output) { _ = CZlib.deflate(&$0, Z_FINISH) }
        output.count = Int(stream.total_out)
        return output
    }

    /// Raw inflate into a buffer of the known size: the baseline cost of decompression alone.
    static func inflate(_ compressed: Data, size: Int) -> Data {
        var stream = z_stream()
        _ = czlib_inflate_init_raw(&stream)
        defer { inflateEnd(&stream) }
        var output = Data(count: size)
        finish(&stream, from: compressed, into: &output) { _ = CZlib.inflate(&$0, Z_FINISH) }
        return output
    }

    /// Points `stream` at all of `input` and all of `output`, then runs `step` (one `Z_FINISH` call) while the
    /// pointers are valid.
    private static func finish(
        _ stream: inout z_stream, from input: Data, into output: inout Data, _ step: (inout z_stream) -> Void
    ) {
        input.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { buffer in
                stream.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
                stream.avail_in = uInt(input.count)
                stream.next_out = buffer.bindMemory(to: Bytef.self).baseAddress
                stream.avail_out = uInt(buffer.count)
                step(&stream)
            }
        }
    }

    /// Appends each value as a little-endian integer of `width` bytes.
    private static func append(_ data: inout Data, _ values: [UInt32], _ width: Int) {
        for value in values {
            for shift in 0..<width { data.append(UInt8(truncatingIfNeeded: value >> (8 * UInt32(shift)))) }
        }
    }
}
