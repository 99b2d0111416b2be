import Foundation

/// A handle on one ask of an `AssetPipeline`: its result, a priority that can change at any time, and
/// cancellation.
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

    private let livePriority: LivePriority
    private let outcome: Task<AssetResult<Value>, Error>

    /// Starts `operation` at once, ranked by a live priority that starts at the request's.
    package init(
        request: AssetRequest,
        _ operation: @escaping @Sendable (_ priority: LivePriority) async throws -> AssetResult<Value>
    ) {
        self.request = request
        let livePriority = LivePriority(request.priority)
        self.livePriority = livePriority
        outcome = Task(priority: request.priority.taskPriority) { try await operation(livePriority) }
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

    /// Stops waiting: the task ends with `CancellationError` unless it already finished.
    public func cancel() {
        outcome.cancel()
    }
}

extension AssetPipeline {
    /// Starts the ask of `value(for:options:storageType:progress:)` and returns its handle at once.
    public func task(
        for request: AssetRequest, options: Decoder.Options, storageType: StorageType,
        progress: (@Sendable (FetchProgress) -> Void)? = nil
    ) -> AssetTask<Value> {
        AssetTask(request: request) { [self] priority in
            try await value(
                for: request, options: options, storageType: storageType, priority: priority, progress: progress)
        }
    }

    /// Starts the ask of `value(for:processor:options:storageType:progress:)` and returns its handle at once.
    public func task(
        for request: AssetRequest, processor: some AssetProcessing<Value>, options: Decoder.Options,
        storageType: StorageType, progress: (@Sendable (FetchProgress) -> Void)? = nil
    ) -> AssetTask<Value> {
        AssetTask(request: request) { [self] priority in
            try await value(
                for: request, processor: processor, options: options, storageType: storageType, priority: priority,
                progress: progress)
        }
    }
}
