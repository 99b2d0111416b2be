import Foundation

extension DotLottie {
    /// Returns `animation` with every image asset whose `p` names an image of this archive embedded
    /// as a base64 data URL (`e` set to 1, `u` emptied), so a renderer needs no file access.
    ///
    /// Assets already embedded, and assets naming images the archive lacks, are left as they are.
    /// The JSON is edited in place (other bytes are kept) and parsed again with `options`.
    ///
    /// - Complexity: O(n) in the JSON length plus the size of the inlined images.
    public func inliningImages(
        in animation: LottieDocument, options: LottieParsingOptions = .init()
    ) throws -> LottieDocument {
        try animation.embeddingImages(options: options) { location in
            guard let path = location.path, !path.hasPrefix("data:"), let (name, image) = archiveImage(named: path)
            else { return nil }
            return (Self.mediaType(forFileName: name), image)
        }
    }

    /// The animation with manifest id `id`, with its archive images inlined; nil if there is no such id.
    public func inlinedAnimation(
        withID id: String, options: LottieParsingOptions = .init()
    ) throws -> LottieDocument? {
        guard let animation = animation(withID: id) else { return nil }
        return try inliningImages(in: animation, options: options)
    }

    /// The archive image an asset's `p` names: by its full text, else by its last path component.
    private func archiveImage(named path: String) -> (name: String, data: Data)? {
        if let data = images[path] { return (path, data) }
        let fileName = String(path.split(separator: "/").last ?? "")
        return images[fileName].map { (fileName, $0) }
    }

    /// The media type for an image file name's extension.
    static func mediaType(forFileName name: String) -> String {
        switch name.split(separator: ".").last?.lowercased() {
        case "png": return "image/png"
        case "jpg", "jpeg": return "image/jpeg"
        case "webp": return "image/webp"
        case "gif": return "image/gif"
        case "svg": return "image/svg+xml"
        default: return "application/octet-stream"
        }
    }
}
