import CDynamicCodecs
import Foundation

/// A libheif encoding step that failed, with its message.
package struct HEIFEncoderFailure: Error, CustomStringConvertible {
    package var step: String
    package var message: String
    package var description: String { "libheif failed at \(step): \(message)" }
}

/// Encodes HEIC and AVIF fixtures for tests and benchmarks through libheif (x265 and libaom, which libheif1
/// depends on).
package enum HEIFFixtureEncoder {
    private final class Output {
        var data = Data()
    }

    /// `image` (straight RGBA is taken from its premultiplied pixels; use opaque or fully transparent pixels)
    /// encoded as HEIC (`compression` HEVC) or AVIF (AV1), with `orientation` written as irot/imir boxes.
    package static func encode(
        _ image: Image, compression: Int32 = MA_HEIF_COMPRESSION_HEVC, lossless: Bool = false,
        orientation: ImageOrientation = .identity
    ) throws -> Data {
        let library = try HEIFLibrary.system.get()
        let dylib = library.library
        let getEncoder: ma_heif_get_encoder_fn = try dylib.function("heif_context_get_encoder_for_format")
        let releaseEncoder: ma_heif_encoder_release_fn = try dylib.function("heif_encoder_release")
        let setQuality: ma_heif_encoder_set_int_fn = try dylib.function("heif_encoder_set_lossy_quality")
        let setLossless: ma_heif_encoder_set_int_fn = try dylib.function("heif_encoder_set_lossless")
        let createImage: ma_heif_image_create_fn = try dylib.function("heif_image_create")
        let addPlane: ma_heif_image_add_plane_fn = try dylib.function("heif_image_add_plane")
        let plane: ma_heif_image_get_plane_fn = try dylib.function("heif_image_get_plane")
        let optionsAlloc: ma_heif_encoding_options_alloc_fn = try dylib.function("heif_encoding_options_alloc")
        let optionsFree: ma_heif_encoding_options_free_fn = try dylib.function("heif_encoding_options_free")
        let encodeImage: ma_heif_encode_image_fn = try dylib.function("heif_context_encode_image")
        let write: ma_heif_context_write_fn = try dylib.function("heif_context_write")

        func check(_ error: ma_heif_error, _ step: String) throws {
            guard error.code != 0 else { return }
            throw HEIFEncoderFailure(step: step, message: error.message.map { String(cString: $0) } ?? "")
        }

        guard let context = library.contextAlloc() else { throw HEIFEncoderFailure(step: "context", message: "") }
        defer { library.contextFree(context) }
        var encoder: UnsafeMutableRawPointer?
        try check(getEncoder(context, compression, &encoder), "encoder")
        guard let encoder else { throw HEIFEncoderFailure(step: "encoder", message: "none") }
        defer { releaseEncoder(encoder) }
        try check(lossless ? setLossless(encoder, 1) : setQuality(encoder, 90), "quality")

        var heifImage: UnsafeMutableRawPointer?
        try check(
            createImage(
                Int32(image.width), Int32(image.height), MA_HEIF_COLORSPACE_RGB, MA_HEIF_CHROMA_INTERLEAVED_RGBA,
                &heifImage
            ), "image"
        )
        guard let heifImage else { throw HEIFEncoderFailure(step: "image", message: "none") }
        defer { library.imageRelease(heifImage) }
        try check(addPlane(heifImage, MA_HEIF_CHANNEL_INTERLEAVED, Int32(image.width), Int32(image.height), 8), "plane")
        var stride: Int32 = 0
        guard let target = plane(heifImage, MA_HEIF_CHANNEL_INTERLEAVED, &stride) else {
            throw HEIFEncoderFailure(step: "plane", message: "none")
        }
        image.pixels.withUnsafeBytes { source in
            for row in 0..<image.height {
                (target + row * Int(stride)).update(
                    from: source.baseAddress!.assumingMemoryBound(to: UInt8.self) + row * image.width * 4,
                    count: image.width * 4
                )
            }
        }
        guard let options = optionsAlloc() else { throw HEIFEncoderFailure(step: "options", message: "") }
        defer { optionsFree(options) }
        options.pointee.image_orientation = Int32(orientation.rawValue)
        try check(encodeImage(context, heifImage, encoder, options, nil), "encode")

        let output = Output()
        var writer = ma_heif_writer(writer_api_version: 1) { _, bytes, size, userData in
            if let bytes, let userData {
                Unmanaged<Output>.fromOpaque(userData).takeUnretainedValue().data.append(
                    bytes.assumingMemoryBound(to: UInt8.self), count: size
                )
            }
            return ma_heif_error(code: 0, subcode: 0, message: nil)
        }
        try check(write(context, &writer, Unmanaged.passUnretained(output).toOpaque()), "write")
        return withExtendedLifetime(output) { output.data }
    }
}
