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

    /// Streams `request` with a data task: returns when the response head arrived, then passes each body
    /// piece on as the session delivers it.
    ///
    /// URLSession on Linux cannot pause a transfer, so pieces the reader has not taken yet are held by the
    /// stream: read promptly, or stop reading to cancel the transfer. `maxResponseSize` holds as bytes arrive.
    ///
    /// - Throws: as `load(_:progress:)`, before the head; the body ends with the same errors after it.
    public func stream(_ request: URLRequest) async throws -> StreamedResponse {
        let task = session.dataTask(with: request)
        let (body, bodyContinuation) = AsyncThrowingStream<Data, Error>.makeStream()
        bodyContinuation.onTermination = { termination in
            if case .cancelled = termination { task.cancel() }
        }
        let start = Mutex((isStarted: false, isCancelled: false))
        let head = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ResponseHead, Error>) in
                let started = start.withLock { start -> Bool in
                    guard !start.isCancelled else { return false }
                    start.isStarted = true
                    delegate.begin(
                        task, consumer: .streaming(head: continuation, body: bodyContinuation),
                        maxResponseSize: maxResponseSize)
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
        return StreamedResponse(head: head, body: ResponseBody(body, abandon: { task.cancel() }))
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
                        task, consumer: .collecting(continuation, progress: progress),
                        maxResponseSize: maxResponseSize)
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

/// Collects each task's response and body and resumes its caller when the task completes, or passes the
/// body on piece by piece to a streaming caller.
private final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: every mutable field is behind `tasks`, a Mutex.

    /// Who receives a transfer's outcome.
    enum Consumer {
        /// `load(_:progress:)`: the whole body when the task completes.
        case collecting(CheckedContinuation<DataResponse, Error>, progress: (@Sendable (FetchProgress) -> Void)?)
        /// `stream(_:)`: the head as soon as it arrives (`head` is nil once resumed), then each body piece.
        case streaming(
            head: CheckedContinuation<ResponseHead, Error>?, body: AsyncThrowingStream<Data, Error>.Continuation)
    }

    private struct Transfer {
        var consumer: Consumer
        var response: HTTPURLResponse?
        var body = Data()
        var receivedBytes: Int64 = 0
        var expectedBytes: Int64?
        var failure: AssetsError?
        let maxResponseSize: Int

        /// Takes a body chunk: appends it when collecting, counts it when streaming. Marks the transfer
        /// failed (and drops its body) once the body is over the limit.
        mutating func receive(_ data: Data, url: URL?) -> Delivery {
            receivedBytes += Int64(data.count)
            if case .collecting = consumer { body.append(data) }
            if receivedBytes > Int64(maxResponseSize), let url {
                failure = .responseTooLarge(url: url, limit: maxResponseSize)
                body = Data()
                return .tooLarge
            }
            switch consumer {
            case .collecting(_, let progress?):
                return .progress(progress, FetchProgress(receivedBytes: receivedBytes, expectedBytes: expectedBytes))
            case .collecting: return .nothing
            case .streaming(_, let body): return .piece(body)
            }
        }
    }

    /// What to do with a chunk once the lock is released.
    private enum Delivery {
        case nothing
        case progress(@Sendable (FetchProgress) -> Void, FetchProgress)
        case piece(AsyncThrowingStream<Data, Error>.Continuation)
        case tooLarge
    }

    private let tasks = Mutex<[Int: Transfer]>([:])
    /// Where the session delivers callbacks (an OperationQueue holds its underlying queue unowned).
    let callbackQueue = DispatchQueue(label: "MediaAssets.URLSessionLoader.callbacks")

    func begin(_ task: URLSessionDataTask, consumer: Consumer, maxResponseSize: Int) {
        let transfer = Transfer(consumer: consumer, maxResponseSize: maxResponseSize)
        tasks.withLock { $0[task.taskIdentifier] = transfer }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let http = response as? HTTPURLResponse
        let expected = response.expectedContentLength >= 0 ? response.expectedContentLength : nil
        let (tooLarge, head) = tasks.withLock {
            tasks -> (Bool, (CheckedContinuation<ResponseHead, Error>, ResponseHead)?) in
            guard var transfer = tasks[dataTask.taskIdentifier] else { return (false, nil) }
            transfer.response = http
            transfer.expectedBytes = expected
            let limit = transfer.maxResponseSize
            let tooLarge = expected.map { $0 > limit } ?? false
            if tooLarge, let url = response.url { transfer.failure = .responseTooLarge(url: url, limit: limit) }
            var head: (CheckedContinuation<ResponseHead, Error>, ResponseHead)?
            switch transfer.consumer {
            case .collecting:
                // One allocation for the whole body when its length is announced.
                if !tooLarge, let expected { transfer.body.reserveCapacity(Int(expected)) }
            case .streaming(let continuation?, let body) where !tooLarge:
                if let http, let url = http.url ?? dataTask.originalRequest?.url {
                    head = (
                        continuation,
                        ResponseHead(url: url, statusCode: http.statusCode, headers: Self.headers(of: http))
                    )
                    transfer.consumer = .streaming(head: nil, body: body)
                }
            case .streaming: break
            }
            tasks[dataTask.taskIdentifier] = transfer
            return (tooLarge, head)
        }
        completionHandler(tooLarge ? .cancel : .allow)
        if let (continuation, value) = head { continuation.resume(returning: value) }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let url = dataTask.originalRequest?.url
        // One lookup per chunk, mutating in place: copying the transfer out would copy the whole
        // body on every append.
        guard let delivery = tasks.withLock({ $0[dataTask.taskIdentifier]?.receive(data, url: url) }) else { return }
        switch delivery {
        case .nothing: break
        case .progress(let handler, let progress): handler(progress)
        case .piece(let body): body.yield(data)
        case .tooLarge: dataTask.cancel()
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        guard let transfer = tasks.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        let failure: Error? = transfer.failure ?? error
        switch transfer.consumer {
        case .collecting(let continuation, _):
            if let failure {
                continuation.resume(throwing: failure)
            } else if let response = transfer.response, let url = response.url ?? task.originalRequest?.url {
                continuation.resume(
                    returning: DataResponse(
                        url: url, statusCode: response.statusCode, headers: Self.headers(of: response),
                        data: transfer.body)
                )
            } else {
                continuation.resume(throwing: URLError(.badServerResponse))
            }
        case .streaming(let head?, let body):
            head.resume(throwing: failure ?? URLError(.badServerResponse))
            body.finish(throwing: failure ?? URLError(.badServerResponse))
        case .streaming(nil, let body):
            if let failure { body.finish(throwing: failure) } else { body.finish() }
        }
    }

    private static func headers(of response: HTTPURLResponse) -> [String: String] {
        var headers: [String: String] = [:]
        for case (let name as String, let value as String) in response.allHeaderFields {
            headers[name.lowercased()] = value
        }
        return headers
    }
}
