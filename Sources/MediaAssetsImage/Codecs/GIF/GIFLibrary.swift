import CDynamicCodecs

/// giflib.so.7's record-by-record reader, loaded at run time.
///
/// `DGifSlurp` is not used: it refuses some valid files (a comment extension with no sub-blocks) that the
/// record reader handles, and it reads every frame into memory before any limit can be checked.
package final class GIFLibrary: DynamicLibraryBinding {
    package static let defaultSoname = "libgif.so.7"
    package static let format = ImageFormat.gif
    package static let debianPackage = "libgif7"

    let open: ma_gif_open_fn
    let close: ma_gif_close_fn
    let recordType: ma_gif_get_record_type_fn
    let imageDescription: ma_gif_get_image_desc_fn
    let line: ma_gif_get_line_fn
    let extensionFirst: ma_gif_get_extension_fn
    let extensionNext: ma_gif_get_extension_next_fn
    let codeFirst: ma_gif_get_code_fn
    let codeNext: ma_gif_get_code_next_fn
    let graphicsControl: ma_gif_extension_to_gcb_fn
    let errorString: ma_gif_error_string_fn
    /// The loaded library, for tests that also write GIFs through giflib.
    package let library: DynamicLibrary

    /// The installed library, loaded at first use (or why it could not be).
    package static let system = GIFLibrary.load()

    /// Resolves the entry points from `library`.
    package init(_ library: DynamicLibrary) throws(ImageError) {
        self.library = library
        open = try library.function("DGifOpen")
        close = try library.function("DGifCloseFile")
        recordType = try library.function("DGifGetRecordType")
        imageDescription = try library.function("DGifGetImageDesc")
        line = try library.function("DGifGetLine")
        extensionFirst = try library.function("DGifGetExtension")
        extensionNext = try library.function("DGifGetExtensionNext")
        codeFirst = try library.function("DGifGetCode")
        codeNext = try library.function("DGifGetCodeNext")
        graphicsControl = try library.function("DGifExtensionToGCB")
        errorString = try library.function("GifErrorString")
    }

    /// giflib's message for `code`.
    func message(_ code: Int32) -> String {
        errorString(code).map { String(cString: $0) } ?? "giflib error \(code)"
    }
}
