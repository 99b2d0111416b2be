import Foundation

/// Turns an asset's bytes into a value: the decode stage of an `AssetPipeline`.
///
/// A util is a decoder plus processors: `ImageUtil`'s decoder makes bitmaps, `AnimationUtil`'s
/// parses Lottie JSON, and yours can decode fonts, PDFs or `Decodable` documents.
///
/// ## Implementation requirements
/// - `identifier` is stable across launches and names everything that changes the output: the
///   pipeline keeps decoded values under it and coalesces decodes by it.
/// - `decode(_:options:)` is a pure function of its input, may run on any thread, and throws (never
///   crashes) on bad input; whatever it throws on a download means the bytes are never stored.
/// - `options(_:satisfy:)` says when a value decoded with one set of options can answer an ask with
///   another (an image decoded at 192 px serves a 96 px ask, never the reverse).
public protocol AssetDecoding: Sendable {
    /// What the decoder produces.
    associatedtype Value: Sendable
    /// What a decode can be asked for, such as a target size. Use `DefaultDecodeOptions` for none.
    associatedtype Options: Hashable & Sendable

    /// A stable name: part of the key decoded values are kept under.
    var identifier: String { get }

    /// Decodes `data`.
    func decode(_ data: Data, options: Options) throws -> Value

    /// The memory `value` occupies, in bytes; memory limits count it.
    func cost(of value: Value) -> Int

    /// Whether a value decoded with `provided` answers an ask for `requested`. Equality by default.
    func options(_ provided: Options, satisfy requested: Options) -> Bool

    /// The options that decode a stored variant: variants are stored as they are shown.
    var variantOptions: Options { get }

    /// Encodes a processed value so its variant can be stored as bytes, or returns `nil` to keep
    /// variants in memory only (the default).
    func encodeVariant(_ value: Value) throws -> EncodedVariant?

    /// The error an ask receives when `decode` threw `error` on the bytes of `key` fetched from `url`.
    /// The default is `AssetsError.undecodable`; a util returns its own error type here.
    func decodingError(_ error: any Error, key: CacheKey, url: URL) -> any Error
}

extension AssetDecoding {
    /// Equality: a decode answers asks for exactly its own options.
    public func options(_ provided: Options, satisfy requested: Options) -> Bool { provided == requested }

    /// Variants stay in memory only.
    public func encodeVariant(_ value: Value) throws -> EncodedVariant? { nil }

    /// `AssetsError.undecodable` naming the key, the URL, this decoder and the reason.
    public func decodingError(_ error: any Error, key: CacheKey, url: URL) -> any Error {
        AssetsError.undecodable(key: key, url: url, decoder: identifier, reason: "\(error)")
    }
}

extension AssetDecoding where Options == DefaultDecodeOptions {
    /// The only options there are.
    public var variantOptions: DefaultDecodeOptions { DefaultDecodeOptions() }
}

/// The options of a decoder that takes none.
public struct DefaultDecodeOptions: Hashable, Sendable {
    /// Creates the (empty) options.
    public init() {}
}

/// A processed value's bytes, to store its variant.
public struct EncodedVariant: Sendable, Hashable {
    /// The bytes.
    public var data: Data
    /// Their MIME type, stored as the entry's content type.
    public var contentType: String?

    /// Creates an encoded variant.
    public init(data: Data, contentType: String?) {
        self.data = data
        self.contentType = contentType
    }
}

/// Turns a decoded value into another: the process stage of an `AssetPipeline` (styling an avatar,
/// picking a page, projecting a document).
///
/// The `identifier` names the output: the processed value is cached under `<key>@<identifier>`, so
/// two processors with one identifier must produce the same result.
public protocol AssetProcessing<Value>: Sendable {
    /// What the processor takes and returns.
    associatedtype Value: Sendable

    /// A stable name of the operation and its parameters: the variant's key suffix.
    var identifier: String { get }

    /// Processes `value`.
    func process(_ value: Value) throws -> Value

    /// Encodes what `process(_:)` made, to store its variant as bytes, or returns `nil` (the default) to leave
    /// it to the pipeline's decoder (`AssetDecoding.encodeVariant(_:)`). A processor that encodes names its
    /// encoding (format, quality) in its `identifier`, which keys the stored bytes.
    func encodeVariant(_ value: Value) throws -> EncodedVariant?

    /// The key the processed value of the asset under `originalKey` is kept under: `<key>@<identifier>`, which
    /// the default makes.
    ///
    /// A processor whose identifier joins parts it holds apart (a style and the format of its variant) appends
    /// them one by one instead (`originalKey.variant(style).variant(format)`): the same key, made on every ask
    /// without joining text. Its text must be `<key>@<identifier>`.
    func variantKey(of originalKey: CacheKey) -> CacheKey
}

extension AssetProcessing {
    /// The decoder's encoding.
    public func encodeVariant(_ value: Value) throws -> EncodedVariant? { nil }

    /// `<key>@<identifier>`.
    public func variantKey(of originalKey: CacheKey) -> CacheKey { originalKey.variant(identifier) }
}

/// A processor failed on the decoded asset: the processor's own error, kept as it was thrown, with the asset it
/// failed on.
///
/// Every util throws this for a failing processor or style, whether it failed while rendering or was found
/// invalid before anything was fetched, so a caller switches on `underlying` (an image style's
/// `ImageProcessingError`, a plugin's own error) in one place. Nothing was stored for the variant.
public struct AssetProcessingError: MediaAssetsError {
    /// The key the variant would have been kept under (`<key>@<identifier>`).
    public let key: CacheKey
    /// The asset's URL.
    public let url: URL
    /// The processor's identifier (an image style's, for example `circle(96)`).
    public let processor: String
    /// What the processor threw.
    public let underlying: any Error

    /// Creates the error for `processor` failing on the asset at `url` with `underlying`.
    package init(key: CacheKey, url: URL, processor: String, underlying: any Error) {
        self.key = key
        self.url = url
        self.processor = processor
        self.underlying = underlying
    }

    /// A sentence a person can act on.
    public var description: String {
        "\(processor) failed on the asset at \(url.absoluteString) (variant \(key.rawValue.prefix(200))): "
            + "\(underlying); nothing was stored for the variant"
    }
}
