import CZlib
import Foundation

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
