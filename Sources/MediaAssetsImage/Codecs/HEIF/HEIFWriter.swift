import CDynamicCodecs
import Foundation

/// Writes HEIC and AVIF files through libheif (loaded at run time; it encodes HEVC through x265 and AV1
/// through libaom, rav1e or SVT-AV1, whichever its build has): `AVIFEncoder` in production, and the fixtures
/// of tests and benchmarks (`HEIFFixtureEncoder`).
enum HEIFWriter {
    private final class Output {
        var data = Data()
    }

    /// How an image is written.
    struct Settings {
        /// `MA_HEIF_COMPRESSION_HEVC` or `MA_HEIF_COMPRESSION_AV1`.
        var compression: Int32
        /// Lossy at this quality (0...100), or lossless when `nil`.
        var quality: Int?
        var orientation: ImageOrientation = .identity
        /// x265's "ultrafast" preset, for large fixtures.
        var fast = false

        /// The format written, which errors name.
        var format: ImageFormat { compression == MA_HEIF_COMPRESSION_AV1 ? .avif : .heic }
    }

    /// The loaded libheif, when it has an encoder for `compression`.
    ///
    /// - Throws: `ImageError.libraryMissing` without libheif, `.unsupported` when it has no such encoder.
    static func loadedLibrary(encoding compression: Int32) throws -> HEIFLibrary {
        let format: ImageFormat = compression == MA_HEIF_COMPRESSION_AV1 ? .avif : .heic
        let library = try HEIFLibrary.system.get()
        let hasEncoder: ma_heif_have_encoder_for_format_fn = try library.library.function(
            "heif_have_encoder_for_format")
        guard hasEncoder(compression) != 0 else {
            throw ImageError.unsupported(
                format: format,
                reason: "the installed \(library.library.soname) was built without a \(format) encoder plugin")
        }
        return library
    }

    /// `image` encoded as `settings` say, with `thumbnail` (and the order its handles are passed in) when given.
    static func encode(
        _ image: Image, settings: Settings, thumbnail: (image: Image, handlesSwapped: Bool)? = nil
    ) throws -> Data {
        let (compression, quality, orientation, fast) = (
            settings.compression, settings.quality, settings.orientation, settings.fast
        )
        let format = settings.format
        let library = try loadedLibrary(encoding: compression)
        let dylib = library.library
        let getEncoder: ma_heif_get_encoder_fn = try dylib.function("heif_context_get_encoder_for_format")
        let releaseEncoder: ma_heif_encoder_release_fn = try dylib.function("heif_encoder_release")
        let setQuality: ma_heif_encoder_set_int_fn = try dylib.function("heif_encoder_set_lossy_quality")
        let setLossless: ma_heif_encoder_set_int_fn = try dylib.function("heif_encoder_set_lossless")
        let optionsAlloc: ma_heif_encoding_options_alloc_fn = try dylib.function("heif_encoding_options_alloc")
        let optionsFree: ma_heif_encoding_options_free_fn = try dylib.function("heif_encoding_options_free")
        let encodeImage: ma_heif_encode_image_fn = try dylib.function("heif_context_encode_image")
        let write: ma_heif_context_write_fn = try dylib.function("heif_context_write")

        guard let context = library.contextAlloc() else { throw failure(format, "context", "no context") }
        defer { library.contextFree(context) }
        var encoder: UnsafeMutableRawPointer?
        try check(format, getEncoder(context, compression, &encoder), "encoder")
        guard let encoder else { throw failure(format, "encoder", "none") }
        defer { releaseEncoder(encoder) }
        let qualitySet = quality.map { setQuality(encoder, Int32(min(100, max(0, $0)))) } ?? setLossless(encoder, 1)
        try check(format, qualitySet, "quality")
        if fast, compression == MA_HEIF_COMPRESSION_HEVC {
            let setString: ma_heif_encoder_set_parameter_string_fn = try dylib.function(
                "heif_encoder_set_parameter_string")
            try check(format, setString(encoder, "preset", "ultrafast"), "preset")
        }
        guard let options = optionsAlloc() else { throw failure(format, "options", "none") }
        defer { optionsFree(options) }
        options.pointee.image_orientation = Int32(orientation.rawValue)
        // An opaque picture gets no alpha plane, as cameras write them.
        options.pointee.save_alpha_channel = image.hasTransparency ? 1 : 0

        func encoded(_ picture: Image) throws -> UnsafeMutableRawPointer {
            let heifImage = try makeHEIFImage(picture, library: library, format: settings.format)
            defer { library.imageRelease(heifImage) }
            var handle: UnsafeMutableRawPointer?
            try check(format, encodeImage(context, heifImage, encoder, options, &handle), "encode")
            guard let handle else { throw failure(format, "encode", "no handle") }
            return handle
        }
        let primary = try encoded(image)
        defer { library.handleRelease(primary) }
        if let thumbnail {
            let assign: ma_heif_assign_thumbnail_fn = try dylib.function("heif_context_assign_thumbnail")
            let handle = try encoded(thumbnail.image)
            defer { library.handleRelease(handle) }
            let handles = thumbnail.handlesSwapped ? (handle, primary) : (primary, handle)
            try check(format, assign(context, handles.0, handles.1), "thumbnail")
        }

        let output = Output()
        var writer = ma_heif_writer(writer_api_version: 1) { _, bytes, size, userData in
            if let bytes, let userData {
                Unmanaged<Output>.fromOpaque(userData).takeUnretainedValue().data.append(
                    bytes.assumingMemoryBound(to: UInt8.self), count: size
                )
            }
            return ma_heif_error(code: 0, subcode: 0, message: nil)
        }
        try check(format, write(context, &writer, Unmanaged.passUnretained(output).toOpaque()), "write")
        return withExtendedLifetime(output) { output.data }
    }

    /// A libheif RGBA image holding `image`'s pixels; the caller releases it.
    private static func makeHEIFImage(
        _ image: Image, library: HEIFLibrary, format: ImageFormat
    ) throws -> UnsafeMutableRawPointer {
        let dylib = library.library
        let createImage: ma_heif_image_create_fn = try dylib.function("heif_image_create")
        let addPlane: ma_heif_image_add_plane_fn = try dylib.function("heif_image_add_plane")
        let plane: ma_heif_image_get_plane_fn = try dylib.function("heif_image_get_plane")
        var heifImage: UnsafeMutableRawPointer?
        try check(
            format,
            createImage(
                Int32(image.width), Int32(image.height), MA_HEIF_COLORSPACE_RGB, MA_HEIF_CHROMA_INTERLEAVED_RGBA,
                &heifImage
            ), "image"
        )
        guard let heifImage else { throw failure(format, "image", "none") }
        do {
            try check(
                format,
                addPlane(heifImage, MA_HEIF_CHANNEL_INTERLEAVED, Int32(image.width), Int32(image.height), 8), "plane")
            var stride: Int32 = 0
            guard let target = plane(heifImage, MA_HEIF_CHANNEL_INTERLEAVED, &stride) else {
                throw failure(format, "plane", "none")
            }
            // libheif takes straight alpha: edges of a circle would darken from premultiplied values.
            var straight = image.pixels
            if image.hasTransparency { straight.withUnsafeMutableBufferPointer { PixelConversion.unpremultiply($0) } }
            straight.withUnsafeBytes { source in
                for row in 0..<image.height {
                    (target + row * Int(stride)).update(
                        from: source.baseAddress!.assumingMemoryBound(to: UInt8.self) + row * image.width * 4,
                        count: image.width * 4
                    )
                }
            }
            return heifImage
        } catch {
            library.imageRelease(heifImage)
            throw error
        }
    }

    private static func check(_ format: ImageFormat, _ error: ma_heif_error, _ step: String) throws {
        guard error.code != 0 else { return }
        throw failure(format, step, error.message.map { String(cString: $0) } ?? "code \(error.code)")
    }

    private static func failure(_ format: ImageFormat, _ step: String, _ message: String) -> ImageError {
        .encodingFailed(format: format, reason: "libheif failed at \(step): \(message)")
    }
}

/// Encodes HEIC and AVIF fixtures for tests and benchmarks through libheif (x265 and libaom, which libheif1
/// depends on), with the orientation boxes and thumbnails cameras write.
package enum HEIFFixtureEncoder {
    /// `image` encoded as HEIC (`compression` HEVC) or AVIF (AV1) at quality 90 (or lossless), with `orientation`
    /// written as irot/imir boxes.
    ///
    /// With a `thumbnail` (a reduced copy of `image`, as a camera's scaler makes its 320×240 one), it is encoded
    /// too and referenced as the primary image's thumbnail (`heif_context_assign_thumbnail`, a `thmb`
    /// reference). `fast` asks x265 for its "ultrafast" preset, for large fixtures.
    ///
    /// - Throws: `ImageError`
    package static func encode(
        _ image: Image, compression: Int32 = MA_HEIF_COMPRESSION_HEVC, lossless: Bool = false,
        orientation: ImageOrientation = .identity, thumbnail: Image? = nil, fast: Bool = false
    ) throws -> Data {
        let settings = HEIFWriter.Settings(
            compression: compression, quality: lossless ? nil : 90, orientation: orientation, fast: fast)
        guard let thumbnail else { return try HEIFWriter.encode(image, settings: settings) }
        // libheif 1.15's heif_context_assign_thumbnail hands its two handles to the C++ method the other way
        // round (the `thmb` reference then runs from the primary image to the thumbnail); the handles are
        // passed in the order that writes it right, and the other order is tried if a later libheif fixed it.
        for handlesSwapped in [true, false] {
            let data = try HEIFWriter.encode(image, settings: settings, thumbnail: (thumbnail, handlesSwapped))
            if (try? thumbnailCount(of: data)) == 1 { return data }
        }
        throw ImageError.encodingFailed(format: settings.format, reason: "libheif wrote no thumbnail reference")
    }

    /// How many thumbnails the primary image of `data` has, read back through libheif.
    private static func thumbnailCount(of data: Data) throws -> Int {
        let library = try HEIFLibrary.system.get()
        return try HEIFSession(library: library, format: .heic).withPrimaryImage(data) { handle in
            Int(library.thumbnailCount(handle))
        }
    }
}
