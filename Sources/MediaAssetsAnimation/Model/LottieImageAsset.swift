import Foundation

/// An image asset: a file next to the animation (`u` + `p`) or an image embedded as a data URL.
public struct LottieImageAsset: Sendable, Hashable {
    /// The asset's identifier (`id`) that image layers name in `refId`.
    public var id: String
    /// The asset's name (`nm`), if any.
    public var name: String?
    /// The image width in pixels (`w`), if given.
    public var width: Double?
    /// The image height in pixels (`h`), if given.
    public var height: Double?
    /// The directory of an external image (`u`), relative to the animation, if given.
    public var directory: String?
    /// The file name of an external image, or the whole data URL of an embedded one (`p`).
    public var path: String
    /// Whether the image is embedded (`e` is 1, or `p` is a `data:` URL).
    public var isEmbedded: Bool

    /// Creates an image asset.
    package init(
        id: String, name: String? = nil, width: Double? = nil, height: Double? = nil,
        directory: String? = nil, path: String, isEmbedded: Bool = false
    ) {
        self.id = id
        self.name = name
        self.width = width
        self.height = height
        self.directory = directory
        self.path = path
        self.isEmbedded = isEmbedded
    }

    /// The data URL of an embedded image, or nil for an external one.
    package var dataURL: String? {
        isEmbedded && path.hasPrefix("data:") ? path : nil
    }

    /// The media type a data URL declares (for example `image/png`), or nil.
    package var embeddedMediaType: String? {
        guard let header = dataURLParts?.header else { return nil }
        let type = header.split(separator: ";", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        return type.isEmpty ? nil : type
    }

    /// Decodes an embedded image's bytes from its data URL; nil for external images or a broken URL.
    ///
    /// Decoding happens on every call (the model keeps only the text), so keep the result if you reuse it.
    ///
    /// - Complexity: O(n) in the length of the data URL.
    public func embeddedData() -> Data? {
        guard let parts = dataURLParts else { return nil }
        if parts.header.hasSuffix(";base64") {
            return Data(base64Encoded: String(parts.payload), options: .ignoreUnknownCharacters)
        }
        return String(parts.payload).removingPercentEncoding.map { Data($0.utf8) }
    }

    /// The header (between `data:` and the comma) and the payload of the data URL.
    private var dataURLParts: (header: Substring, payload: Substring)? {
        guard let url = dataURL, let comma = url.firstIndex(of: ",") else { return nil }
        let header = url[url.index(url.startIndex, offsetBy: 5)..<comma]
        return (header, url[url.index(after: comma)...])
    }
}
