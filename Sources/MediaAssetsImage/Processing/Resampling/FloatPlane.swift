/// Premultiplied RGBA samples as `Float`, rows top to bottom, no padding, and the float/byte
/// conversions the resampler uses: its intermediate rows are floats, never rounded or clamped.
struct FloatPlane {
    let width: Int
    let height: Int
    var samples: [Float]

    /// Rounds to bytes: alpha clamped to 0...255, each colour channel to 0...alpha.
    func quantized() -> Image {
        let count = width * height * 4
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { bytes, initialized in
            samples.withUnsafeBufferPointer { floats in
                guard let source = floats.baseAddress, let destination = bytes.baseAddress else { return }
                for offset in stride(from: 0, to: count, by: 4) {
                    FloatPlane.storePixel(FloatPlane.load(source + offset), to: destination + offset)
                }
            }
            initialized = count
        }
        return Image(width: width, height: height, pixels: pixels)
    }

    @inline(__always)
    static func load(_ pointer: UnsafePointer<Float>) -> SIMD4<Float> {
        UnsafeRawPointer(pointer).loadUnaligned(as: SIMD4<Float>.self)
    }

    @inline(__always)
    static func store(_ value: SIMD4<Float>, to pointer: UnsafeMutablePointer<Float>) {
        UnsafeMutableRawPointer(pointer).storeBytes(of: value, as: SIMD4<Float>.self)
    }

    /// Rounds one premultiplied pixel to bytes without trapping conversions: adding 2^23 leaves the
    /// rounded integer in the low mantissa bits.
    @inline(__always)
    static func storePixel(_ value: SIMD4<Float>, to destination: UnsafeMutablePointer<UInt8>) {
        let zero = SIMD4<Float>(repeating: 0)
        let limit = SIMD4<Float>(repeating: 255)
        let clamped = value.replacing(with: zero, where: value .< zero).replacing(with: limit, where: value .> limit)
        let biased = unsafeBitCast(clamped + SIMD4(repeating: 8_388_608), to: SIMD4<Int32>.self)
        let rounded = biased &- SIMD4(repeating: 0x4B00_0000)
        let limited = rounded.replacing(with: SIMD4(repeating: rounded[3]), where: rounded .> rounded[3])
        UnsafeMutableRawPointer(destination).storeBytes(
            of: SIMD4<UInt8>(truncatingIfNeeded: limited), as: SIMD4<UInt8>.self
        )
    }
}
