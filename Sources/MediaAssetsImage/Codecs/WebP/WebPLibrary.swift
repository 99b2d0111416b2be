import CDynamicCodecs

/// libwebp.so.7's decoding and encoding entry points, loaded at run time.
package final class WebPLibrary: DynamicLibraryBinding {
    package static let defaultSoname = "libwebp.so.7"
    package static let format = ImageFormat.webp
    package static let debianPackage = "libwebp7"

    let getFeatures: ma_webp_get_features_fn
    let decodeRGBAInto: ma_webp_decode_rgba_into_fn
    let encodeRGBA: ma_webp_encode_rgba_fn
    let encodeLosslessRGBA: ma_webp_encode_lossless_rgba_fn
    let free: ma_webp_free_fn
    let initDecoderConfig: ma_webp_init_decoder_config_fn
    let decodeWithConfig: ma_webp_decode_fn
    let freeDecBuffer: ma_webp_free_dec_buffer_fn

    /// The installed library, loaded at first use (or why it could not be).
    package static let system = WebPLibrary.load()

    /// Resolves the entry points from `library`.
    package init(_ library: DynamicLibrary) throws(ImageError) {
        // The declarations follow libwebp 1.x (decoder ABI 2): refuse another major version up front.
        let version = try library.function("WebPGetDecoderVersion", as: ma_webp_get_version_fn.self)()
        guard version >> 16 == 1 else {
            throw ImageError.libraryMissing(
                format: .webp, library: library.soname, debianPackage: library.debianPackage,
                reason: "version \(version >> 16).\(version >> 8 & 0xFF) is not the 1.x ABI this build declares"
            )
        }
        getFeatures = try library.function("WebPGetFeaturesInternal")
        decodeRGBAInto = try library.function("WebPDecodeRGBAInto")
        encodeRGBA = try library.function("WebPEncodeRGBA")
        encodeLosslessRGBA = try library.function("WebPEncodeLosslessRGBA")
        free = try library.function("WebPFree")
        initDecoderConfig = try library.function("WebPInitDecoderConfigInternal")
        decodeWithConfig = try library.function("WebPDecode")
        freeDecBuffer = try library.function("WebPFreeDecBuffer")
    }
}

/// libwebpdemux.so.2's animation decoder, loaded at run time (only animated WebP needs it).
package final class WebPDemuxLibrary: DynamicLibraryBinding {
    package static let defaultSoname = "libwebpdemux.so.2"
    package static let format = ImageFormat.webp
    package static let debianPackage = "libwebpdemux2"

    let demux: ma_webp_demux_fn
    let demuxGet: ma_webp_demux_get_fn
    let demuxDelete: ma_webp_demux_delete_fn
    let optionsInit: ma_webp_anim_options_init_fn
    let decoderNew: ma_webp_anim_decoder_new_fn
    let getInfo: ma_webp_anim_get_info_fn
    let getNext: ma_webp_anim_get_next_fn
    let decoderDelete: ma_webp_anim_delete_fn

    /// The installed library, loaded at first use (or why it could not be).
    package static let system = WebPDemuxLibrary.load()

    /// Resolves the entry points from `library`.
    package init(_ library: DynamicLibrary) throws(ImageError) {
        demux = try library.function("WebPDemuxInternal")
        demuxGet = try library.function("WebPDemuxGetI")
        demuxDelete = try library.function("WebPDemuxDelete")
        optionsInit = try library.function("WebPAnimDecoderOptionsInitInternal")
        decoderNew = try library.function("WebPAnimDecoderNewInternal")
        getInfo = try library.function("WebPAnimDecoderGetInfo")
        getNext = try library.function("WebPAnimDecoderGetNext")
        decoderDelete = try library.function("WebPAnimDecoderDelete")
    }
}
