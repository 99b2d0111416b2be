import Foundation

/// Decodes previews of one image while its bytes are still arriving (a progressive JPEG's first scans).
///
/// Made per download by `ImageDecoding.makeIncrementalDecoder(options:)`; fed the body's pieces in order.
/// A preview is never the final image: the final image is decoded from the whole body as usual, and a
/// preview is never stored.
///
/// Implementation requirements:
/// - `append(_:)` keeps what it needs between calls, so a download of n pieces costs about one decode of
///   the image, not n; memory stays bounded by the options (pixel limit, target size), as a full decode's.
/// - Bad or truncated input never crashes: a piece that makes the stream undecodable throws `ImageError`,
///   after which the caller stops feeding it.
public protocol IncrementalImageDecoding: AnyObject {
    /// Takes the next piece of the body; returns a new preview when the bytes so far complete more of the
    /// image than the last preview showed, else `nil`.
    ///
    /// - Throws: `ImageError` when the bytes cannot be an image this decoder previews.
    func append(_ data: Data) throws -> Image?
}

extension ImageDecoding {
    /// No previews: the image appears when its bytes are all in.
    public func makeIncrementalDecoder(options: ImageDecodingOptions) -> (any IncrementalImageDecoding)? { nil }
}

extension ImageCodecRegistry {
    /// An incremental decoder for the image whose first bytes are `leadingBytes`, when its decoder previews
    /// (see `IncrementalImageDecoding`); `nil` when the format has no previews or is not known yet.
    package func makeIncrementalDecoder(
        leadingBytes: Data, options: ImageDecodingOptions
    ) -> (any IncrementalImageDecoding)? {
        decoders.first { $0.canDecode(leadingBytes) }?.makeIncrementalDecoder(options: options)
    }
}
