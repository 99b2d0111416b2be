import Foundation
import MediaAssets
import Synchronization

/// A handle on one image request: an `AssetTask` whose value is the styled image.
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
public typealias ImageTask = AssetTask<Image>

extension AssetTask where Value == Image {
    /// The image in its style, once it is ready; the same as `value`.
    ///
    /// - Throws: as `ImageUtil.image(for:style:storageType:)`; `CancellationError` after `cancel()`.
    public var image: Image {
        get async throws { try await value }
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
        let wantsPreviews = previews
        return AssetTask(request: request) { [self] reporting in
            let feeder =
                wantsPreviews
                ? PreviewFeeder(util: self, style: style, priority: reporting.priority, sink: reporting.previews) : nil
            let progress: @Sendable (FetchProgress) -> Void = { report in
                reporting.progress(report)
                if let piece = report.piece { feeder?.add(piece, endingAt: report.receivedBytes) }
            }
            do {
                let result = try await imageResult(
                    for: request, style: style, storageType: storageType, priority: reporting.priority,
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

    /// Starts loading the image at `url` in `style`; see `task(for:style:storageType:previews:)`.
    public func task(
        for url: URL, style: some ImageProcessing = AvatarStyle.original, storageType: StorageType? = nil,
        previews: Bool = false
    ) -> ImageTask {
        task(for: AssetRequest(url: url), style: style, storageType: storageType, previews: previews)
    }
}
