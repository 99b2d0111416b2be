import CDynamicCodecs

/// libheif.so.1's decoding entry points, loaded at run time (libheif decodes HEIC through libde265 and AVIF
/// through dav1d/libaom, which its package pulls in).
package final class HEIFLibrary: DynamicLibraryBinding {
    package static let defaultSoname = "libheif.so.1"
    package static let format = ImageFormat.heic
    package static let debianPackage = "libheif1"

    let contextAlloc: ma_heif_context_alloc_fn
    let contextFree: ma_heif_context_free_fn
    let readFromMemory: ma_heif_read_from_memory_fn
    let primaryHandle: ma_heif_get_primary_handle_fn
    let handleRelease: ma_heif_handle_release_fn
    let handleWidth: ma_heif_handle_get_int_fn
    let handleHeight: ma_heif_handle_get_int_fn
    let handleHasAlpha: ma_heif_handle_get_int_fn
    let thumbnailCount: ma_heif_handle_get_int_fn
    let thumbnailIDs: ma_heif_handle_get_thumbnail_ids_fn
    let thumbnail: ma_heif_handle_get_thumbnail_fn
    let decodeImage: ma_heif_decode_image_fn
    let imageWidth: ma_heif_image_get_width_fn
    let imageHeight: ma_heif_image_get_width_fn
    let imagePlane: ma_heif_image_get_plane_readonly_fn
    let imageRelease: ma_heif_image_release_fn
    /// libheif's own reading of a file's boxes as text (every 1.x has it), for `HEIFDerivations`.
    let dumpBoxes: ma_heif_context_dump_boxes_fn
    /// The bound on a derived image's width and height (libheif ≥ 1.6), or `nil` before 1.6.
    let setSizeLimit: ma_heif_context_set_size_limit_fn?
    /// The loaded library, for tests that also encode HEIC and AVIF through libheif.
    package let library: DynamicLibrary

    /// The installed library, loaded at first use (or why it could not be).
    package static let system = HEIFLibrary.load()

    /// Resolves the entry points from `library`.
    package init(_ library: DynamicLibrary) throws(ImageError) {
        // The declarations follow libheif 1.15; heif_error and the calls used are unchanged since 1.4.
        let major = try library.function("heif_get_version_number_major", as: ma_heif_get_version_part_fn.self)()
        let minor = try library.function("heif_get_version_number_minor", as: ma_heif_get_version_part_fn.self)()
        guard major == 1, minor >= 4 else {
            throw ImageError.libraryMissing(
                format: .heic, library: library.soname, debianPackage: library.debianPackage,
                reason: "version \(major).\(minor) is not the 1.x (≥ 1.4) ABI this build declares"
            )
        }
        // Once per process (this runs once, behind `system`'s lazy initialisation): registers the decoder
        // plugins before any thread decodes, instead of leaving it to a first use that may race.
        let initialization = try library.function("heif_init", as: ma_heif_init_fn.self)(nil)
        guard initialization.code == 0 else {
            throw ImageError.libraryMissing(
                format: .heic, library: library.soname, debianPackage: library.debianPackage,
                reason: initialization.message.map { String(cString: $0) } ?? "heif_init failed"
            )
        }
        self.library = library
        contextAlloc = try library.function("heif_context_alloc")
        contextFree = try library.function("heif_context_free")
        readFromMemory = try library.function("heif_context_read_from_memory_without_copy")
        primaryHandle = try library.function("heif_context_get_primary_image_handle")
        handleRelease = try library.function("heif_image_handle_release")
        handleWidth = try library.function("heif_image_handle_get_width")
        handleHeight = try library.function("heif_image_handle_get_height")
        handleHasAlpha = try library.function("heif_image_handle_has_alpha_channel")
        thumbnailCount = try library.function("heif_image_handle_get_number_of_thumbnails")
        thumbnailIDs = try library.function("heif_image_handle_get_list_of_thumbnail_IDs")
        thumbnail = try library.function("heif_image_handle_get_thumbnail")
        decodeImage = try library.function("heif_decode_image")
        imageWidth = try library.function("heif_image_get_width")
        imageHeight = try library.function("heif_image_get_height")
        imagePlane = try library.function("heif_image_get_plane_readonly")
        imageRelease = try library.function("heif_image_release")
        dumpBoxes = try library.function("heif_context_debug_dump_boxes_to_file")
        setSizeLimit = try? library.function("heif_context_set_maximum_image_size_limit")
    }
}
