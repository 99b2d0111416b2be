import CPNG
import Foundation

@testable import MediaAssetsImage

/// One PNG colour type × bit depth × interlace × tRNS combination, with its source samples and the
/// premultiplied RGBA8 pixels a correct decoder must produce.
struct PNGVariant: Sendable, CustomStringConvertible {
    var colorType: Int32
    var bitDepth: Int32
    var interlaced: Bool
    var transparency: Bool
    var width = 13
    var height = 9

    var description: String {
        let names: [Int32: String] = [0: "gray", 2: "rgb", 3: "palette", 4: "gray+alpha", 6: "rgba"]
        return "\(names[colorType] ?? "?")/\(bitDepth)\(interlaced ? "/adam7" : "")\(transparency ? "/tRNS" : "")"
    }

    /// Every valid colour type and bit depth, with and without tRNS where PNG allows it, plain and Adam7.
    static let all: [PNGVariant] = {
        var variants: [PNGVariant] = []
        for interlaced in [false, true] {
            for depth: Int32 in [1, 2, 4, 8, 16] {
                for transparency in [false, true] {
                    variants.append(
                        PNGVariant(
                            colorType: 0, bitDepth: depth, interlaced: interlaced,
                            transparency: transparency))
                }
            }
            for depth: Int32 in [8, 16] {
                for transparency in [false, true] {
                    variants.append(
                        PNGVariant(
                            colorType: 2, bitDepth: depth, interlaced: interlaced,
                            transparency: transparency))
                }
                variants.append(PNGVariant(colorType: 4, bitDepth: depth, interlaced: interlaced, transparency: false))
                variants.append(PNGVariant(colorType: 6, bitDepth: depth, interlaced: interlaced, transparency: false))
            }
            for depth: Int32 in [1, 2, 4, 8] {
                for transparency in [false, true] {
                    variants.append(
                        PNGVariant(
                            colorType: 3, bitDepth: depth, interlaced: interlaced,
                            transparency: transparency))
                }
            }
        }
        return variants
    }()

    var channels: Int { [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][colorType] ?? 1 }
    var paletteCount: Int { min(256, 1 << Int(bitDepth)) }
    var transparentCount: Int { paletteCount / 2 + 1 }

    /// A raw sample (index for palettes) at `x`, `y`, `channel`, within the bit depth.
    func sample(x: Int, y: Int, channel: Int) -> Int {
        if bitDepth == 16 { return (x * 5003 + y * 7919 + channel * 20011 + 1234) & 0xFFFF }
        return (x * 3 + y * 5 + channel * 7) % (1 << Int(bitDepth))
    }

    func paletteColor(_ index: Int) -> (UInt8, UInt8, UInt8) {
        (UInt8(index * 37 % 256), UInt8(index * 91 % 256), UInt8(255 - index * 13 % 256))
    }

    func paletteAlpha(_ index: Int) -> UInt8 {
        transparency && index < transparentCount ? UInt8(index * 50 % 256) : 255
    }

    /// The raw colour whose pixels tRNS makes transparent (the sample at (1, 0)).
    var transparentSamples: [Int] { (0..<channels).map { sample(x: 1, y: 0, channel: $0) } }

    /// libpng's 16→8 scaling (png_set_scale_16), and 1/2/4-bit gray expansion.
    func eightBit(_ value: Int) -> UInt8 {
        switch bitDepth {
        case 16:
            let high = value >> 8
            let low = value & 0xFF
            return UInt8(truncatingIfNeeded: high + (((low - high + 128) * 65535) >> 24))
        case 8: return UInt8(value)
        default: return UInt8(value * 255 / ((1 << Int(bitDepth)) - 1))
        }
    }

    /// Rows packed as PNG stores them (MSB-first below 8 bits, big-endian at 16).
    var packedRows: (bytes: [UInt8], stride: Int) {
        let stride = (width * channels * Int(bitDepth) + 7) / 8
        var bytes = [UInt8](repeating: 0, count: stride * height)
        for y in 0..<height {
            var bit = 0
            for x in 0..<width {
                for channel in 0..<channels {
                    let value = sample(x: x, y: y, channel: channel)
                    let rowStart = y * stride
                    if bitDepth == 16 {
                        bytes[rowStart + bit / 8] = UInt8(value >> 8)
                        bytes[rowStart + bit / 8 + 1] = UInt8(value & 0xFF)
                    } else {
                        let shift = 8 - Int(bitDepth) - bit % 8
                        bytes[rowStart + bit / 8] |= UInt8(value << shift)
                    }
                    bit += Int(bitDepth)
                }
            }
        }
        return (bytes, stride)
    }

    /// The expected decoder output: premultiplied RGBA8.
    var expectedPixels: [UInt8] {
        var pixels: [UInt8] = []
        pixels.reserveCapacity(width * height * 4)
        let transparent = transparentSamples
        for y in 0..<height {
            for x in 0..<width {
                let samples = (0..<channels).map { sample(x: x, y: y, channel: $0) }
                let clear = transparency && colorType != 3 && samples == transparent
                var color: RGBA
                switch colorType {
                case 0: color = RGBA(red: eightBit(samples[0]), green: eightBit(samples[0]), blue: eightBit(samples[0]))
                case 2: color = RGBA(red: eightBit(samples[0]), green: eightBit(samples[1]), blue: eightBit(samples[2]))
                case 3:
                    let (red, green, blue) = paletteColor(samples[0])
                    color = RGBA(red: red, green: green, blue: blue, alpha: paletteAlpha(samples[0]))
                case 4:
                    let gray = eightBit(samples[0])
                    color = RGBA(red: gray, green: gray, blue: gray, alpha: eightBit(samples[1]))
                default:
                    color = RGBA(
                        red: eightBit(samples[0]), green: eightBit(samples[1]), blue: eightBit(samples[2]),
                        alpha: eightBit(samples[3]))
                }
                if clear { color.alpha = 0 }
                let premultiplied = color.premultiplied
                pixels += [premultiplied.red, premultiplied.green, premultiplied.blue, premultiplied.alpha]
            }
        }
        return pixels
    }

    /// The variant encoded by libpng.
    func encoded() throws -> Data {
        let (rows, stride) = packedRows
        var options = cpng_encode_options()
        options.width = UInt32(width)
        options.height = UInt32(height)
        options.stride = stride
        options.color_type = colorType
        options.bit_depth = bitDepth
        options.interlaced = interlaced ? 1 : 0
        options.compression_level = -1
        let palette = (0..<paletteCount).flatMap { index -> [UInt8] in
            let (red, green, blue) = paletteColor(index)
            return [red, green, blue]
        }
        let alphas = (0..<transparentCount).map { paletteAlpha($0) }
        if transparency && colorType != 3 {
            let transparent = transparentSamples
            options.has_trans_color = 1
            if colorType == 0 {
                options.trans_gray = UInt16(transparent[0])
            } else {
                options.trans_red = UInt16(transparent[0])
                options.trans_green = UInt16(transparent[1])
                options.trans_blue = UInt16(transparent[2])
            }
        }
        return try palette.withUnsafeBufferPointer { paletteBuffer in
            try alphas.withUnsafeBufferPointer { alphaBuffer in
                if colorType == 3 {
                    options.palette = paletteBuffer.baseAddress
                    options.palette_count = Int32(paletteCount)
                    if transparency {
                        options.trans_alpha = alphaBuffer.baseAddress
                        options.trans_alpha_count = Int32(transparentCount)
                    }
                }
                return try ImageEncoder.encodePNG(rows, options: options)
            }
        }
    }
}
