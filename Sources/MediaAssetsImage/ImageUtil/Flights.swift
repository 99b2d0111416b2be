import Foundation
import MediaAssets

/// What one render flight produced, and where it came from.
struct Rendition: Sendable {
    enum Source: Sendable, Equatable {
        /// A decoded image kept in memory.
        case memory
        /// The stored variant's bytes, decoded.
        case storedVariant
        /// Rendered from the original (downloaded when `fetched`, else found in storage).
        case original(fetched: Bool)
    }

    var image: Image
    var source: Source
    /// The decoded original the image was rendered from (possibly reduced by DCT scaling).
    var original: Image?
}

/// A decoded original, its cache entry, and whether it came from the network.
struct DecodedOriginal: Sendable {
    var image: Image
    /// The original's bytes entry; nil when the image came from the decoded original kept in memory.
    var entry: CacheEntry?
    var fetched: Bool
    /// Until when the original is fresh; its styled variants inherit it.
    var freshUntil: Date?
}

/// What render flights coalesce on.
struct RenditionKey: Hashable, Sendable {
    var variantKey: CacheKey
    var storageType: StorageType
    var cachePolicy: AssetRequest.CachePolicy
}

/// An original as decode flights see it: its key, where it is stored, and how the cache is used.
struct OriginalSource: Hashable, Sendable {
    var originalKey: CacheKey
    var storageType: StorageType
    var cachePolicy: AssetRequest.CachePolicy
}

/// What decode flights coalesce on: one decode per original and decode size.
struct OriginalKey: Hashable, Sendable {
    var source: OriginalSource
    var targetSize: PixelSize?
}

/// The decode sizes asks are waiting for, per original, so that a smaller style joins a larger decode under
/// way instead of decoding the same bytes again (the entropy decoding costs the same at any DCT scale).
struct DecodeSizeRegistry: Sendable {
    private var waiting: [OriginalSource: [PixelSize?: Int]] = [:]

    /// The size to decode `source` at for `target`: the smallest size under way that covers it, else `target`.
    /// The ask is counted until `_leave(_:size:)`.
    mutating func _enter(_ source: OriginalSource, target: PixelSize?) -> PixelSize? {
        let underWay = waiting[source, default: [:]].keys
        let chosen = underWay.filter { Self.covers($0, target) }.min { Self.area($0) < Self.area($1) } ?? target
        waiting[source, default: [:]][chosen, default: 0] += 1
        return chosen
    }

    /// Ends an ask counted by `_enter(_:target:)`.
    mutating func _leave(_ source: OriginalSource, size: PixelSize?) {
        guard var sizes = waiting[source], let count = sizes[size] else { return }
        sizes[size] = count > 1 ? count - 1 : nil
        waiting[source] = sizes.isEmpty ? nil : sizes
    }

    /// Whether a decode toward `size` (full size when `nil`) is at least as large as one toward `target`.
    static func covers(_ size: PixelSize?, _ target: PixelSize?) -> Bool {
        guard let size else { return true }
        guard let target else { return false }
        return size.width >= target.width && size.height >= target.height
    }

    private static func area(_ size: PixelSize?) -> Int {
        guard let size else { return .max }
        let (area, overflow) = size.width.multipliedReportingOverflow(by: size.height)
        return overflow ? .max : area
    }
}
