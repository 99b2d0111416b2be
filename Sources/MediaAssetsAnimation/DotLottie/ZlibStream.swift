import CZlib
import Foundation

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
