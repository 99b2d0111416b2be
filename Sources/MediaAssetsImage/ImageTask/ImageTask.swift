import Foundation
import MediaAssets
import Synchronization

/// A handle on one image request: its result, a priority that can change at any time, cancellation,
/// download progress and previews.
///
/// Made by `ImageUtil.task(for:style:storageType:previews:)`; the request starts at once. Set `priority` when
/// a row scrolls into view or away: the request moves up or down every queue it waits in (download, decode,
/// styling), and a flight it shares with other asks (a prefetch of the same image) runs at the highest
/// priority of its askers. `cancel()` leaves whatever it waits for; work another ask shares goes on.
///
/// ```swift
/// let task = images.task(for: AssetRequest(url: url, priority: .low), style: .circle(diameter: 96))
/// task.priority = .high                       // the row became visible
/// for await preview in task.previews { show(preview) }   // only with `previews: true`
/// let avatar = try await task.image
/// ```
public final class ImageTask: Sendable {
    /// The request this task loads.
    public let request: AssetRequest
    /// Previews of the image while its bytes arrive, styled like the final image; it finishes before the
    /// final image is available, and is empty unless the task was made with `previews: true` and its
    /// format previews (a progressive JPEG). The newest preview is kept when a reader is slow.
    public let previews: AsyncStream<Image>
    /// Download progress while the task waits for bytes; it finishes when the task ends.
    public let progressUpdates: AsyncStream<FetchProgress>

    private let livePriority: LivePriority
    private let latestProgress = LatestProgress()
    private let outcome: Task<AssetResult<Image>, Error>

    init(
        util: ImageUtil, request: AssetRequest, style: some ImageProcessing, storageType: StorageType,
        previews wantsPreviews: Bool
    ) {
        self.request = request
        let livePriority = LivePriority(request.priority)
        self.livePriority = livePriority
        let (previews, previewSink) = AsyncStream.makeStream(of: Image.self, bufferingPolicy: .bufferingNewest(1))
        let (progressUpdates, progressSink) = AsyncStream.makeStream(
            of: FetchProgress.self, bufferingPolicy: .bufferingNewest(1))
        self.previews = previews
        self.progressUpdates = progressUpdates
        let latestProgress = self.latestProgress
        outcome = Task(priority: request.priority.taskPriority) {
            let feeder =
                wantsPreviews ? PreviewFeeder(util: util, style: style, priority: livePriority, sink: previewSink) : nil
            defer {
                progressSink.finish()
                previewSink.finish()
            }
            let progress: @Sendable (FetchProgress) -> Void = { report in
                var plain = report
                plain.piece = nil
                latestProgress.value.withLock { $0 = plain }
                progressSink.yield(plain)
                if let piece = report.piece { feeder?.add(piece, endingAt: report.receivedBytes) }
            }
            do {
                let result = try await util.imageResult(
                    for: request, style: style, storageType: storageType, priority: livePriority,
                    progress: progress, receivesBodyPieces: wantsPreviews)
                // Previews stop before the final image is handed out, so none comes after it.
                await feeder?.finish()
                return result
            } catch {
                await feeder?.finish()
                throw error
            }
        }
    }

    /// How urgently the request is served; settable at any time, from any thread.
    public var priority: AssetRequest.Priority {
        get { livePriority.value }
        set { livePriority.value = newValue }
    }

    /// The image in its style, once it is ready.
    ///
    /// - Throws: as `ImageUtil.image(for:style:storageType:)`; `CancellationError` after `cancel()`.
    public var image: Image {
        get async throws { try await outcome.value.value }
    }

    /// The image with where it came from (`AssetSource`).
    ///
    /// - Throws: as `image`.
    public var result: AssetResult<Image> {
        get async throws { try await outcome.value }
    }

    /// The latest download progress, or `nil` before any byte arrived (and for cache hits).
    public var progress: FetchProgress? { latestProgress.value.withLock { $0 } }

    /// Stops waiting: the task ends with `CancellationError` unless it already finished. A download or decode
    /// another ask shares goes on for it; a download no one else shares stops, unless its bytes had all arrived:
    /// then they are decoded and stored in the background, and a task made again for them reads them there.
    public func cancel() {
        outcome.cancel()
    }
}

extension ImageUtil {
    /// Starts loading the image at `request` in `style` and returns its handle at once.
    ///
    /// The handle's `priority` starts at `request.priority` and can be changed at any time; with `previews`,
    /// a download this task starts is streamed and its previews delivered through `ImageTask.previews` (a
    /// task that joins a download already under way without streaming gets none).
    public func task(
        for request: AssetRequest, style: some ImageProcessing = AvatarStyle.original,
        storageType: StorageType? = nil, previews: Bool = false
    ) -> ImageTask {
        let storageType = storageType ?? configuration.storageType
        return ImageTask(util: self, request: request, style: style, storageType: storageType, previews: previews)
    }

    /// Starts loading the image at `url` in `style`; see `task(for:style:storageType:previews:)`.
    public func task(
        for url: URL, style: some ImageProcessing = AvatarStyle.original, storageType: StorageType? = nil,
        previews: Bool = false
    ) -> ImageTask {
        task(for: AssetRequest(url: url), style: style, storageType: storageType, previews: previews)
    }
}

/// The latest progress of a task, shared with the task's work.
private final class LatestProgress: Sendable {
    let value = Mutex<FetchProgress?>(nil)
}
