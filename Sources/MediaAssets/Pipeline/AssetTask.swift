import Foundation
import Synchronization

/// A handle on one ask of an `AssetPipeline`: its result, a priority that can change at any time,
/// cancellation, download progress and (for images) previews. `ImageTask` is `AssetTask<Image>`.
///
/// The request carries the ask's priority (`AssetRequest.priority`); a handle is the one way to change it
/// afterwards. Set `priority` when a row scrolls into view or away: the ask moves up or down every queue it
/// waits in (download, decode, process), and a flight it shares with other asks (a prefetch of the same
/// asset) runs at the highest priority of its askers. `cancel()` leaves whatever it waits for; work another
/// ask shares goes on, and bytes that had all arrived are kept.
///
/// ```swift
/// let task = documents.task(for: AssetRequest(url: feedURL, priority: .low), options: .init(), storageType: .disk)
/// task.priority = .high                       // the feed became visible
/// let feed = try await task.value
/// ```
public final class AssetTask<Value: Sendable>: Sendable {
    /// The request this task loads.
    public let request: AssetRequest
    /// Previews of the value while its bytes arrive, processed like the final value; it finishes before the
    /// value is available. Only an image task made with `previews: true` whose format previews (a progressive
    /// JPEG) yields any; the newest preview is kept when a reader is slow.
    public let previews: AsyncStream<Value>
    /// Download progress while the task waits for bytes; it finishes when the task ends.
    public let progressUpdates: AsyncStream<FetchProgress>

    private let livePriority: LivePriority
    private let latestProgress: LatestProgress
    private let outcome: Task<AssetResult<Value>, Error>

    /// What a task's work reports through: its live priority, its progress (recorded as `progress` and
    /// yielded to `progressUpdates`, without the body piece) and its previews.
    package struct Reporting: Sendable {
        /// The task's priority, as `priority` sets it.
        package let priority: LivePriority
        /// Records a progress report.
        package let progress: @Sendable (FetchProgress) -> Void
        /// Where previews go.
        package let previews: AsyncStream<Value>.Continuation
    }

    /// Starts `operation` at once, ranked by a live priority that starts at the request's.
    package init(request: AssetRequest, _ operation: @escaping @Sendable (Reporting) async throws -> AssetResult<Value>)
    {
        self.request = request
        let livePriority = LivePriority(request.priority)
        self.livePriority = livePriority
        let (previews, previewSink) = AsyncStream.makeStream(of: Value.self, bufferingPolicy: .bufferingNewest(1))
        let (progressUpdates, progressSink) = AsyncStream.makeStream(
            of: FetchProgress.self, bufferingPolicy: .bufferingNewest(1))
        self.previews = previews
        self.progressUpdates = progressUpdates
        let latestProgress = LatestProgress()
        self.latestProgress = latestProgress
        let reporting = Reporting(
            priority: livePriority,
            progress: { report in
                var plain = report
                plain.piece = nil
                latestProgress.value.withLock { $0 = plain }
                progressSink.yield(plain)
            },
            previews: previewSink)
        outcome = Task(priority: request.priority.taskPriority) {
            defer {
                progressSink.finish()
                previewSink.finish()
            }
            return try await operation(reporting)
        }
    }

    /// How urgently the ask is served; settable at any time, from any thread.
    public var priority: AssetRequest.Priority {
        get { livePriority.value }
        set { livePriority.value = newValue }
    }

    /// The value with where it came from, once it is ready.
    ///
    /// - Throws: what the pipeline's `value(for:…)` throws; `CancellationError` after `cancel()`.
    public var result: AssetResult<Value> {
        get async throws { try await outcome.value }
    }

    /// The value, once it is ready.
    ///
    /// - Throws: as `result`.
    public var value: Value {
        get async throws { try await outcome.value.value }
    }

    /// The latest download progress, or `nil` before any byte arrived (and for cache hits).
    public var progress: FetchProgress? { latestProgress.value.withLock { $0 } }

    /// Stops waiting: the task ends with `CancellationError` unless it already finished. A download or decode
    /// another ask shares goes on for it; a download no one else shares stops, unless its bytes had all arrived:
    /// then they are kept, and a task made again for them reads them from storage.
    public func cancel() {
        outcome.cancel()
    }
}

/// The latest progress of a task, shared with the task's work.
private final class LatestProgress: Sendable {
    let value = Mutex<FetchProgress?>(nil)
}

extension AssetPipeline {
    /// Starts the ask of `value(for:options:storageType:progress:)` and returns its handle at once.
    public func task(
        for request: AssetRequest, options: Decoder.Options, storageType: StorageType,
        progress: (@Sendable (FetchProgress) -> Void)? = nil
    ) -> AssetTask<Value> {
        AssetTask(request: request) { [self] reporting in
            try await value(
                for: request, options: options, storageType: storageType, priority: reporting.priority,
                progress: { report in
                    reporting.progress(report)
                    progress?(report)
                })
        }
    }

    /// Starts the ask of `value(for:processor:options:storageType:progress:)` and returns its handle at once.
    public func task(
        for request: AssetRequest, processor: some AssetProcessing<Value>, options: Decoder.Options,
        storageType: StorageType, progress: (@Sendable (FetchProgress) -> Void)? = nil
    ) -> AssetTask<Value> {
        AssetTask(request: request) { [self] reporting in
            try await value(
                for: request, processor: processor, options: options, storageType: storageType,
                priority: reporting.priority,
                progress: { report in
                    reporting.progress(report)
                    progress?(report)
                })
        }
    }
}
