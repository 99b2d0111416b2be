import Foundation

/// A deterministic byte stream standing in for a video: not a real video, only bytes to range over.
public enum SampleVideo {
    /// `count` bytes of a fixed pseudo-random sequence (SplitMix64): the same bytes on every run,
    /// so a reader can check what it received against them.
    public static func bytes(count: Int) -> Data {
        let count = max(0, count)
        var data = Data(count: count)
        data.withUnsafeMutableBytes { (buffer: UnsafeMutableRawBufferPointer) in
            var state: UInt64 = 0x5EED_0F_F11E
            var offset = 0
            while offset < count {
                state &+= 0x9E37_79B9_7F4A_7C15
                var word = state
                word = (word ^ (word >> 30)) &* 0xBF58_476D_1CE4_E5B9
                word = (word ^ (word >> 27)) &* 0x94D0_49BB_1331_11EB
                word ^= word >> 31
                let length = min(8, count - offset)
                if length == 8 {
                    buffer.storeBytes(of: word.littleEndian, toByteOffset: offset, as: UInt64.self)
                } else {
                    for index in 0..<length { buffer[offset + index] = UInt8(truncatingIfNeeded: word >> (8 * index)) }
                }
                offset += length
            }
        }
        return data
    }
}
