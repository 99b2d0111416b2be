import Foundation
import MediaAssets

/// Prefetches what a list's rows will show, so a row that appears is a memory or disk hit.
///
/// One per list (or per screen): it holds that list's bound on concurrent prefetches and what it started,
/// so `stopPrefetching()` stops only its own. By default it makes the styled image a row displays and keeps
/// it where the display reads (`storageType`): in memory beside its bytes, and its bytes on disk under
/// `.hybrid(.image)`. With `destination: .originalBytes` it only fetches the original's bytes into the
/// storage's byte tiers, for rows whose style is not known yet.
///
/// Prefetches run at `.low` priority by default and share every flight with display: when a row asks for an
/// image being prefetched, it joins that work (one download, one decode, one render) and raises it to the
/// row's priority. Each such join is counted once, in the util's `statistics.joins` and the manager's
/// `fetchStatistics.joins` alike, and the row's result says so (`AssetResult.isJoined`).
///
/// ```swift
/// let prefetcher = ImagePrefetcher(util: images, style: .circle(diameter: 96))
/// prefetcher.startPrefetching(with: upcomingURLs)
/// prefetcher.stopPrefetching(with: urlsScrolledAway)
/// ```
public final class ImagePrefetcher: Sendable {
    /// What a prefetch leaves in the cache.
    public enum Destination: Sendable, Hashable {
        /// The styled image, in memory and (when the storage persists) as variant bytes: a row is a memory hit.
        case styledImage
        /// Only the original's bytes, in the storage's byte tiers: a row still decodes and styles.
        case originalBytes
    }

    /// The util whose pipeline prefetches go through.
    package let util: ImageUtil
    /// The style prefetched images are made in.
    package let style: any ImageProcessing
    /// The storage type the display reads.
    package let storageType: StorageType
    /// What a prefetch leaves in the cache.
    package let destination: Destination
    private let prefetcher: Prefetcher

    /// Creates a prefetcher for rows showing images in `style` from `storageType`.
    ///
    /// - Parameters:
    ///   - util: the util whose pipeline prefetches go through (the one the rows ask).
    ///   - style: the style the rows show.
    ///   - storageType: the storage type the rows read.
    ///   - destination: the styled image (the default) or only the original's bytes.
    ///   - maxConcurrentRequests: the most prefetches this prefetcher runs at once (at least 1).
    ///   - priority: the priority prefetches run at; a row asking for the same image raises the shared work.
    public init(
        util: ImageUtil, style: some ImageProcessing = AvatarStyle.original,
        storageType: StorageType? = nil, destination: Destination = .styledImage,
        maxConcurrentRequests: Int = 4, priority: AssetRequest.Priority = .low
    ) {
        let storageType = storageType ?? util.configuration.storageType
        self.util = util
        self.style = style
        self.storageType = storageType
        self.destination = destination
        let operation: (@Sendable (AssetRequest) async throws -> Void)?
        switch destination {
        case .originalBytes: operation = nil
        case .styledImage:
            operation = { request in
                _ = try await util.imageResult(for: request, style: style, storageType: storageType)
            }
        }
        self.prefetcher = Prefetcher(
            manager: util.manager, storageType: storageType, maxConcurrentRequests: maxConcurrentRequests,
            priority: priority, operation: operation)
    }

    /// The most prefetches this prefetcher runs at once.
    package var maxConcurrentRequests: Int { prefetcher.maxConcurrentRequests }

    /// Starts prefetching `requests` (in order, within the bound); ones already started are left as they are.
    public func startPrefetching(with requests: [AssetRequest]) {
        prefetcher.start(requests)
    }

    /// Starts prefetching the images at `urls`; see `startPrefetching(with:)`.
    public func startPrefetching(with urls: [URL]) {
        startPrefetching(with: urls.map { AssetRequest(url: $0) })
    }

    /// Stops prefetching `requests`: queued ones never start, running ones stop unless a row shares their work.
    public func stopPrefetching(with requests: [AssetRequest]) {
        prefetcher.stop(requests)
    }

    /// Stops prefetching the images at `urls`; see `stopPrefetching(with:)`.
    public func stopPrefetching(with urls: [URL]) {
        stopPrefetching(with: urls.map { AssetRequest(url: $0) })
    }

    /// Stops every prefetch this prefetcher started.
    public func stopPrefetching() {
        prefetcher.cancel()
    }

    /// Prefetches `requests` and returns when all are done (or stops them when the calling task is cancelled).
    public func prefetch(_ requests: [AssetRequest]) async {
        await prefetcher.prefetch(requests)
    }

    /// How many prefetches succeeded and failed so far (stopped ones count as neither).
    public var statistics: PrefetchStatistics { prefetcher.statistics }

    /// Prefetches queued or running.
    package var pendingCount: Int { prefetcher.pendingCount }
}
