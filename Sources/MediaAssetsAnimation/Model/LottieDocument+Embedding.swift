import Foundation

extension LottieDocument {
    /// Returns the animation with the image assets `image` answers for embedded as base64 data URLs
    /// (`p` replaced, `u` emptied, `e` set to 1); precompositions and unanswered assets are left as they are.
    ///
    /// The JSON is edited in place (other bytes are kept) and parsed again with `options`.
    ///
    /// - Complexity: O(n) in the JSON length plus the size of the embedded images.
    func embeddingImages(
        options: LottieParsingOptions, _ image: (ImageAssetLocation) throws -> (mediaType: String, data: Data)?
    ) throws -> LottieDocument {
        let bytes = [UInt8](data)
        let locations = try ImageAssetScanner.locate(in: bytes, maximumDepth: options.maximumNestingDepth)
        var edits: [(range: Range<Int>, replacement: String)] = []
        for location in locations where !location.hasLayers {
            guard let pathRange = location.pathRange, let (mediaType, imageData) = try image(location) else { continue }
            edits.append((pathRange, "\"data:\(mediaType);base64,\(imageData.base64EncodedString())\""))
            if let directoryRange = location.directoryRange { edits.append((directoryRange, "\"\"")) }
            if let embeddedRange = location.embeddedRange {
                edits.append((embeddedRange, "1"))
            } else {
                edits.append((location.bodyStart..<location.bodyStart, "\"e\":1,"))
            }
        }
        guard !edits.isEmpty else { return self }
        edits.sort { $0.range.lowerBound < $1.range.lowerBound }
        var edited: [UInt8] = []
        edited.reserveCapacity(bytes.count + edits.reduce(0) { $0 + $1.replacement.utf8.count })
        var copied = 0
        for edit in edits {
            edited.append(contentsOf: bytes[copied..<edit.range.lowerBound])
            edited.append(contentsOf: edit.replacement.utf8)
            copied = edit.range.upperBound
        }
        edited.append(contentsOf: bytes[copied...])
        return try LottieDocument.parse(Data(edited), options: options)
    }
}
