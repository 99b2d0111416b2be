import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default `DataLoading`: a URLSession data task per request, with progress and cancellation.
///
/// Sessions have no `URLCache` (on Linux URLSession never consults one anyway): every bit of
/// caching is the manager's. A response larger than `maxResponseSize` (by its `Content-Length`,
/// or as bytes arrive) is cancelled and fails with `AssetsError.responseTooLarge`.
///
/// Loaders made without a configuration share one process-wide session, as `URLSession.shared`
/// is shared: on Linux every URLSession keeps its own curl multi handle and dispatch machinery
/// alive, so one session per manager would cost threads for nothing.
public final class URLSessionLoader: DataLoading {
    private let session: URLSession
    private let delegate: SessionDelegate
    private let ownsSession: Bool
    /// The most bytes one response may have.
    public let maxResponseSize: Int

    private static let shared: (session: URLSession, delegate: SessionDelegate) = {
        let delegate = SessionDelegate()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 16
        return (makeSession(configuration, delegate), delegate)
    }()

    /// Creates a loader on the shared session.
    public init(maxResponseSize: Int = 256 << 20) {
        (session, delegate) = Self.shared
        ownsSession = false
        self.maxResponseSize = maxResponseSize
    }

    /// Creates a loader with a session of its own, for settings such as timeouts or proxies.
    ///
    /// - Parameters:
    ///   - configuration: the session configuration; its `urlCache` is removed.
    ///   - maxResponseSize: the most bytes one response may have.
    public init(configuration: URLSessionConfiguration, maxResponseSize: Int = 256 << 20) {
        delegate = SessionDelegate()
        session = Self.makeSession(configuration, delegate)
        ownsSession = true
        self.maxResponseSize = maxResponseSize
    }

    deinit {
        if ownsSession { session.invalidateAndCancel() }
    }

    private static func makeSession(_ configuration: URLSessionConfiguration, _ delegate: SessionDelegate) -> URLSession
    {
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        // Callbacks run straight on the delegate's own serial dispatch queue: a default
        // OperationQueue costs a scheduling round trip per body chunk.
        let delegateQueue = OperationQueue()
        delegateQueue.maxConcurrentOperationCount = 1
        delegateQueue.underlyingQueue = delegate.callbackQueue
        return URLSession(configuration: configuration, delegate: delegate, delegateQueue: delegateQueue)
    }

    /// Loads `request` with a data task; cancelling the calling task cancels the data task.
    ///
    /// - Throws: `CancellationError` when the calling task is cancelled before the data task starts, the
    ///   session's `URLError(.cancelled)` when it is cancelled during the transfer.
    public func load(
        _ request: URLRequest, progress: (@Sendable (FetchProgress) -> Void)?
    ) async throws -> DataResponse {
        let task = session.dataTask(with: request)
        // A data task cancelled before `resume()` may never report its end, so the task is started and
        // cancelled under one lock: the cancellation either comes first and it never starts, or comes after.
        let start = Mutex((isStarted: false, isCancelled: false))
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let started = start.withLock { start -> Bool in
                    guard !start.isCancelled else { return false }
                    start.isStarted = true
                    delegate.begin(
                        task, continuation: continuation, progress: progress, maxResponseSize: maxResponseSize)
                    task.resume()
                    return true
                }
                if !started { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let started = start.withLock { start -> Bool in
                start.isCancelled = true
                return start.isStarted
            }
            if started { task.cancel() }
        }
    }
}

/// Collects each task's response and body and resumes its caller when the task completes.
private final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: every mutable field is behind `tasks`, a Mutex.
    private struct Transfer {
        var continuation: CheckedContinuation<DataResponse, Error>
        var progress: (@Sendable (FetchProgress) -> Void)?
        var response: HTTPURLResponse?
        var body = Data()
        var expectedBytes: Int64?
        var failure: AssetsError?
        let maxResponseSize: Int

        /// Appends a body chunk and returns the progress handler to call with the progress made, or
        /// marks the transfer failed (and drops its body) once the body is over the limit.
        mutating func receive(
            _ data: Data, url: URL?
        ) -> (handler: (@Sendable (FetchProgress) -> Void)?, progress: FetchProgress, tooLarge: Bool) {
            body.append(data)
            let progress = FetchProgress(receivedBytes: Int64(body.count), expectedBytes: expectedBytes)
            guard body.count > maxResponseSize, let url else { return (self.progress, progress, false) }
            failure = .responseTooLarge(url: url, limit: maxResponseSize)
            body = Data()
            return (nil, progress, true)
        }
    }

    private let tasks = Mutex<[Int: Transfer]>([:])
    /// Where the session delivers callbacks (an OperationQueue holds its underlying queue unowned).
    let callbackQueue = DispatchQueue(label: "MediaAssets.URLSessionLoader.callbacks")

    func begin(
        _ task: URLSessionDataTask, continuation: CheckedContinuation<DataResponse, Error>,
        progress: (@Sendable (FetchProgress) -> Void)?, maxResponseSize: Int
    ) {
        let transfer = Transfer(continuation: continuation, progress: progress, maxResponseSize: maxResponseSize)
        tasks.withLock { $0[task.taskIdentifier] = transfer }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let http = response as? HTTPURLResponse
        let expected = response.expectedContentLength >= 0 ? response.expectedContentLength : nil
        let tooLarge = tasks.withLock { tasks -> Bool in
            guard var transfer = tasks[dataTask.taskIdentifier] else { return false }
            transfer.response = http
            transfer.expectedBytes = expected
            let limit = transfer.maxResponseSize
            let tooLarge = expected.map { $0 > limit } ?? false
            if tooLarge, let url = response.url { transfer.failure = .responseTooLarge(url: url, limit: limit) }
            // One allocation for the whole body when its length is announced.
            if !tooLarge, let expected { transfer.body.reserveCapacity(Int(expected)) }
            tasks[dataTask.taskIdentifier] = transfer
            return tooLarge
        }
        completionHandler(tooLarge ? .cancel : .allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let url = dataTask.originalRequest?.url
        // One lookup per chunk, mutating in place: copying the transfer out would copy the whole
        // body on every append.
        guard let update = tasks.withLock({ $0[dataTask.taskIdentifier]?.receive(data, url: url) }) else { return }
        if update.tooLarge {
            dataTask.cancel()
        } else {
            update.handler?(update.progress)
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        guard let transfer = tasks.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let failure = transfer.failure {
            transfer.continuation.resume(throwing: failure)
        } else if let error {
            transfer.continuation.resume(throwing: error)
        } else if let response = transfer.response, let url = response.url ?? task.originalRequest?.url {
            var headers: [String: String] = [:]
            for case (let name as String, let value as String) in response.allHeaderFields {
                headers[name.lowercased()] = value
            }
            transfer.continuation.resume(
                returning: DataResponse(
                    url: url, statusCode: response.statusCode, headers: headers, data: transfer.body)
            )
        } else {
            transfer.continuation.resume(throwing: URLError(.badServerResponse))
        }
    }
}
