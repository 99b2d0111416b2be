import Foundation
import MediaAssets

/// An image's bytes as a service sends them: encoded in a format, with their content type and a strong
/// validator (`ImageUtil.encodedImage(for:style:format:storageType:)`).
///
/// ```swift
/// let image = try await images.encodedImage(for: url, style: .circle(diameter: 96), format: .webp(quality: 80))
/// if image.isNotModified(ifNoneMatch: request.header("If-None-Match")) {
///     return Response(status: 304, headers: ["ETag": image.entityTag.description])
/// }
/// return Response(status: 200, headers: ["Content-Type": image.contentType, "ETag": "\(image.entityTag)"],
///                 body: image.data)
/// ```
public struct EncodedImage: Sendable, Hashable {
    /// The encoded bytes.
    public var data: Data
    /// Their format, read from their magic bytes.
    public var format: ImageFormat
    /// Their MIME type (`image/webp`), for `Content-Type`.
    public var contentType: String
    /// A strong validator of the bytes, for `ETag`: the same bytes always carry the same tag.
    public var entityTag: EntityTag
    /// Where the bytes came from: `.memory` for a variant's bytes kept in the memory tier and `.storage` for a
    /// stored variant's (both served as they are), `.network`, `.storage` or `.stale` when they were made now from
    /// an original downloaded, read from storage or stale, `.memory` when made from an image kept in memory. An
    /// ask that joined work under way (`isJoined`) gets that work's source.
    public var source: AssetSource
    /// Whether this ask joined work another ask had started (a download, decode or render under way) instead of
    /// starting its own; see `AssetResult.isJoined`.
    package var isJoined: Bool
    /// The stored variant's metadata: its freshness follows its original's (`freshUntil`, for `Cache-Control`).
    public var metadata: CacheMetadata

    /// Creates an encoded image.
    package init(
        data: Data, format: ImageFormat, contentType: String, entityTag: EntityTag, source: AssetSource,
        metadata: CacheMetadata, isJoined: Bool = false
    ) {
        self.data = data
        self.format = format
        self.contentType = contentType
        self.entityTag = entityTag
        self.source = source
        self.metadata = metadata
        self.isJoined = isJoined
    }

    /// Whether a request carrying `If-None-Match: header` is answered 304 Not Modified (RFC 9110 §13.1.2,
    /// weak comparison; `*` matches); see `EntityTag.isNotModified(ifNoneMatch:)`.
    public func isNotModified(ifNoneMatch header: String?) -> Bool {
        entityTag.isNotModified(ifNoneMatch: header)
    }
}

extension ImageUtil {
    /// Returns the image at `request` in `style`, encoded in `format` (the configuration's `variantFormat` by
    /// default): the bytes a service sends, with their content type and a strong validator.
    ///
    /// A stored variant in that format is served as it is, from the byte tiers of `storageType` (or the writes
    /// still staged), without decoding it. Otherwise the variant is made as `image(for:style:storageType:)`
    /// makes it (sharing its download, decode and render), encoded on the manager's executor and stored under
    /// `<key>@<style>@<format>` (`cacheKey(for:style:format:)`), and its bytes returned. Under a memory-only
    /// storage type (`.lru(.image)`) nothing keeps bytes: each ask encodes the styled image memory holds. With
    /// `.original`, the whole image is encoded in `format`.
    ///
    /// - Throws: as `image(for:style:storageType:)`; `ImageError.libraryMissing` or `.unsupported` when the
    ///   system cannot encode `format` (WebP without libwebp, AVIF without an AV1 encoder in libheif).
    public func encodedImage(
        for request: AssetRequest, style: some ImageProcessing = AvatarStyle.original, format: ImageEncoder? = nil,
        storageType: StorageType? = nil
    ) async throws -> EncodedImage {
        let storageType = storageType ?? configuration.storageType
        let processor = formatted(style, as: format)
        try validate(style, for: request, key: processor.variantKey(of: manager.cacheKey(for: request)))
        let result = try await naming(style) {
            try await pipeline.encodedVariant(
                for: request, processor: processor, options: .init(for: style), storageType: storageType)
        }
        if result.source == .network {
            makePlaceholder(for: request, from: nil, metadata: result.metadata, storageType: storageType)
        }
        let data = result.value.data
        let imageFormat =
            ImageFormat.sniff(data)
            ?? ImageFormat(rawValue: result.value.contentType?.replacing("image/", with: "") ?? "")
        let entityTag =
            result.metadata.etag.flatMap(EntityTag.init) ?? EntityTag.strong(hashing: data)
        return EncodedImage(
            data: data, format: imageFormat, contentType: result.value.contentType ?? imageFormat.mimeType,
            entityTag: entityTag, source: result.source, metadata: result.metadata, isJoined: result.isJoined)
    }

    /// Returns the image at `url` in `style`, encoded in `format`; see `encodedImage(for:style:format:storageType:)`.
    public func encodedImage(
        for url: URL, style: some ImageProcessing = AvatarStyle.original, format: ImageEncoder? = nil,
        storageType: StorageType? = nil
    ) async throws -> EncodedImage {
        try await encodedImage(for: AssetRequest(url: url), style: style, format: format, storageType: storageType)
    }

    /// The key the encoded variant of `request` in `style` and `format` is stored under: `<key>@<style>@<format>`
    /// (`.original` included: the whole image in that format).
    package func cacheKey(for request: AssetRequest, style: some ImageProcessing, format: ImageEncoder) -> CacheKey {
        formatted(style, as: format).variantKey(of: manager.cacheKey(for: request))
    }
}
