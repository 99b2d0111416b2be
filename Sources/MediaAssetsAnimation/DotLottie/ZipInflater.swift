import CZlib
import Foundation

/// Raw-deflate decompression and CRC-32 through the system zlib.
enum ZipInflater {
    /// Inflates a raw deflate stream that must produce exactly `declaredSize` bytes.
    ///
    /// The output buffer holds `declaredSize + 1` bytes: zlib can never write more, and a stream
    /// that fills the spare byte is longer than declared and is refused.
    static func inflate(_ compressed: Data, declaredSize: Int, entryName: String) throws -> Data {
        guard compressed.count <= Int(UInt32.max) else {
            throw DotLottieError.corruptEntry(entry: entryName, reason: "the compressed data exceeds 4 GiB")
        }
        var stream = z_stream()
        guard czlib_inflate_init_raw(&stream) == Z_OK else {
            throw DotLottieError.corruptEntry(entry: entryName, reason: "zlib could not start inflating")
        }
        defer { inflateEnd(&stream) }
        var output = Data(count: declaredSize + 1)
        let status = ZlibStream.finish(&stream, input: compressed, output: &output) { CZlib.inflate(&$0, Z_FINISH) }
        let produced = Int(stream.total_out)
        if produced > declaredSize {
            throw DotLottieError.sizeMismatch(entry: entryName, declared: declaredSize, actual: produced)
        }
        switch status {
        case Z_STREAM_END:
            guard produced == declaredSize else {
                throw DotLottieError.sizeMismatch(entry: entryName, declared: declaredSize, actual: produced)
            }
        case Z_BUF_ERROR, Z_OK:
            throw DotLottieError.corruptEntry(entry: entryName, reason: "the deflate stream ends early")
        default:
            let message = stream.msg.map { String(cString: $0) } ?? "zlib status \(status)"
            throw DotLottieError.corruptEntry(entry: entryName, reason: message)
        }
        output.count = declaredSize
        return output
    }

    /// The CRC-32 of `data`, as zip archives store it.
    static func crc32(of data: Data) -> UInt32 {
        data.withUnsafeBytes { buffer in
            guard let base = buffer.bindMemory(to: Bytef.self).baseAddress else { return 0 }
            var checksum = CZlib.crc32(0, nil, 0)
            var offset = 0
            // zlib takes 32-bit lengths; feed large buffers in pieces.
            while offset < buffer.count {
                let length = min(buffer.count - offset, Int(UInt32.max))
                checksum = CZlib.crc32(checksum, base + offset, uInt(length))
                offset += length
            }
            return UInt32(truncatingIfNeeded: checksum)
        }
    }
}

/// One zlib call over a whole buffer, shared by inflation and deflation.
enum ZlibStream {
    /// Points `stream` at all of `input` and all of `output`, runs `step` once (an `inflate` or `deflate`
    /// with `Z_FINISH`) and returns its status; `stream.total_out` then says how much was written.
    static func finish(
        _ stream: inout z_stream, input: Data, output: inout Data, _ step: (inout z_stream) -> Int32
    ) -> Int32 {
        input.withUnsafeBytes { inputBuffer in
            output.withUnsafeMutableBytes { outputBuffer in
                stream.next_in = UnsafeMutablePointer(mutating: inputBuffer.bindMemory(to: Bytef.self).baseAddress)
                stream.avail_in = uInt(inputBuffer.count)
                stream.next_out = outputBuffer.bindMemory(to: Bytef.self).baseAddress
                stream.avail_out = uInt(outputBuffer.count)
                return step(&stream)
            }
        }
    }
}
