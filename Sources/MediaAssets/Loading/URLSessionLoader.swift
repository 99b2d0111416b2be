import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default `DataLoading`: a URLSession data task per request, with progress and cancellation, and a
/// ``FetchPolicy`` applied to every connection.
///
/// Sessions have no `URLCache` (on Linux URLSession never consults one anyway): every bit of
/// caching is the manager's. A response larger than `maxResponseSize` (by its `Content-Length`,
/// or as bytes arrive) is cancelled and fails with `AssetsError.responseTooLarge`; a body that ends
/// short of its `Content-Length` fails with `AssetsError.lengthMismatch`. A declared length is not trusted
/// with an allocation: at most 1 MiB of it is reserved when the head arrives, and the buffer grows as bytes
/// do (to at most twice what arrived, and never past the declared length).
///
/// Redirects are followed here, one data task per hop, never by URLSession: each hop is checked under the
/// policy (scheme, host, and the addresses it resolves to) before its connection opens, and for `http` the
/// connection is pinned to the checked addresses, tried in the resolver's order when one cannot be reached.
/// See ``FetchPolicy`` for what is and is not guaranteed.
/// Progress is sampled: about every 64 KiB (or a sixteenth of the declared length, whichever is larger) and
/// once at the end, not on every 16 KiB chunk the session delivers.
///
/// Loaders made without a configuration share one process-wide session, as `URLSession.shared`
/// is shared: on Linux every URLSession keeps its own curl multi handle and dispatch machinery
/// alive, so one session per manager would cost threads for nothing.
public final class URLSessionLoader: DataLoading {
    private let session: URLSession
    private let delegate: SessionDelegate
    private let ownsSession: Bool
    /// Called with every request just before it is handed to URLSession (the first hop and each redirect).
    private let connectionGuard: (@Sendable (URLRequest) throws -> Void)?
    /// The most bytes one response may have.
    package let maxResponseSize: Int

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
        connectionGuard = nil
        self.maxResponseSize = maxResponseSize
    }

    /// Creates a loader with a session of its own, for settings such as timeouts or proxies.
    ///
    /// - Parameters:
    ///   - configuration: the session configuration; its `urlCache` is removed.
    ///   - maxResponseSize: the most bytes one response may have.
    public convenience init(configuration: URLSessionConfiguration, maxResponseSize: Int = 256 << 20) {
        self.init(configuration: configuration, maxResponseSize: maxResponseSize, connectionGuard: nil)
    }

    /// A loader with a session of its own whose `connectionGuard` sees every request just before URLSession
    /// gets it, and may throw to stop it: tests use it to fail at once, rather than connect, should a request
    /// for an address outside loopback ever get that far.
    package init(
        configuration: URLSessionConfiguration, maxResponseSize: Int,
        connectionGuard: (@Sendable (URLRequest) throws -> Void)?
    ) {
        delegate = SessionDelegate()
        session = Self.makeSession(configuration, delegate)
        ownsSession = true
        self.connectionGuard = connectionGuard
        self.maxResponseSize = maxResponseSize
    }

    deinit {
        // Off the caller's thread: the last reference may go on the session's own thread, which invalidation
        // waits for.
        if ownsSession { delegate.callbackQueue.async { [session] in session.invalidateAndCancel() } }
    }

    private static func makeSession(_ configuration: URLSessionConfiguration, _ delegate: SessionDelegate) -> URLSession
    {
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let delegateQueue = DispatchingOperationQueue(delegate.callbackQueue)
        return URLSession(configuration: configuration, delegate: delegate, delegateQueue: delegateQueue)
    }

    // MARK: Loading

    /// Loads `request` under ``FetchPolicy/app``; see `load(_:policy:progress:)`.
    public func load(
        _ request: URLRequest, progress: (@Sendable (FetchProgress) -> Void)?
    ) async throws -> DataResponse {
        try await load(request, policy: .app, progress: progress)
    }

    /// Streams `request` under ``FetchPolicy/app``; see `stream(_:policy:)`.
    public func stream(_ request: URLRequest) async throws -> StreamedResponse {
        try await stream(request, policy: .app)
    }

    /// Loads `request` with a data task per hop, following redirects under `policy`; cancelling the calling
    /// task cancels the transfer. A body whose every declared byte had arrived when the cancellation reached the
    /// session is returned whole, as if it had come first, so that a caller keeps what arrived.
    ///
    /// - Throws: `AssetsError.fetchRefused` (before any connection to the refused URL), `.responseTooLarge`,
    ///   `.lengthMismatch`, `CancellationError` when the calling task is cancelled before a data task starts,
    ///   the session's `URLError(.cancelled)` when it is cancelled during a transfer, or another `URLError`.
    public func load(
        _ request: URLRequest, policy: FetchPolicy, progress: (@Sendable (FetchProgress) -> Void)?
    ) async throws -> DataResponse {
        try await following(request, policy: policy) { wire, url in
            try await transfer(wire) { continuation, _ in .collecting(continuation, progress: progress, url: url) }
        }
    }

    /// Streams `request` under `policy`: returns when the final response's head arrived, then passes each body
    /// piece on as the session delivers it.
    ///
    /// URLSession on Linux cannot pause a transfer, so pieces the reader has not taken yet are held by the
    /// stream: read promptly, or stop reading to cancel the transfer. `maxResponseSize` holds as bytes arrive.
    ///
    /// - Throws: as `load(_:policy:progress:)`, before the head; the body ends with the same errors after it.
    public func stream(_ request: URLRequest, policy: FetchPolicy) async throws -> StreamedResponse {
        try await following(request, policy: policy) { wire, url in
            let (body, bodyContinuation) = AsyncThrowingStream<Data, Error>.makeStream()
            var abandon: (@Sendable () -> Void)?
            let outcome = try await transfer(wire) { continuation, start in
                bodyContinuation.onTermination = { termination in
                    if case .cancelled = termination { start.cancel() }
                }
                abandon = { start.cancel() }
                return .streaming(head: continuation, body: bodyContinuation, url: url)
            }
            return outcome.map { head in StreamedResponse(head: head, body: ResponseBody(body, abandon: abandon)) }
        }
    }

    /// Runs `hop` for `request` and for each redirect it answers with, checking each under `policy` first.
    ///
    /// `hop` gets the request to hand to URLSession (pinned to a checked address for `http`) and the URL it
    /// stands for, and returns either the final response or the redirect's `Location`.
    private func following<Value>(
        _ request: URLRequest, policy: FetchPolicy,
        _ hop: (_ wire: URLRequest, _ url: URL) async throws -> HopOutcome<Value>
    ) async throws -> Value {
        guard let first = request.url else { throw URLError(.badURL) }
        var chain = RedirectChain(request: request, url: first, policy: policy)
        while true {
            let url = chain.url
            let addresses = try await policy.admit(url)
            let candidates = chain.wireRequests(pinnedTo: addresses)
            var outcome: HopOutcome<Value>?
            for (index, wire) in candidates.enumerated() {
                do {
                    try connectionGuard?(wire)
                    outcome = try await hop(wire, url)
                    break
                } catch let error as URLError where Self.isConnectFailure(error) && index < candidates.count - 1 {
                    continue  // the next checked address of the host
                }
            }
            switch outcome {
            case .answered(let value)?: return value
            case .redirected(let location)?: try chain.follow(location)
            case nil: throw URLError(.cannotConnectToHost)
            }
        }
    }

    /// Whether `error` may mean that the address could not be reached (libcurl reports an unreachable or
    /// unavailable address as an unknown error), so that the host's next address is worth a try.
    private static func isConnectFailure(_ error: URLError) -> Bool {
        [.cannotConnectToHost, .notConnectedToInternet, .unknown].contains(error.code)
    }

    /// Starts one data task for `wire` and awaits its outcome; `consumer` says who receives it.
    ///
    /// The task is made and started on the delegate's queue, never on the caller's thread: see ``DataTaskStart``.
    private func transfer<Value>(
        _ wire: URLRequest,
        consumer: (CheckedContinuation<HopOutcome<Value>, Error>, DataTaskStart) -> SessionDelegate.Consumer
    ) async throws -> HopOutcome<Value> {
        let start = DataTaskStart(queue: delegate.callbackQueue)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HopOutcome<Value>, Error>) in
                let consumer = consumer(continuation, start)
                delegate.callbackQueue.async { [session, delegate, maxResponseSize] in
                    guard !start.isCancelled, let task = start.adopt(session.dataTask(with: wire)) else {
                        continuation.resume(throwing: CancellationError())
                        return
                    }
                    delegate.begin(task, consumer: consumer, maxResponseSize: maxResponseSize)
                    task.resume()
                }
            }
        } onCancel: {
            start.cancel()
        }
    }
}

/// The data task of one hop, made, started and cancelled on the delegate's serial queue.
///
/// swift-corelibs-foundation's `dataTask(with:)`, `resume()` and `cancel()` wait (`workQueue.sync`) for the one
/// serial queue that every URLSession of the process works on. Called on the cooperative pool, which is as wide as
/// the cores, requests that start while that queue is busy hold every thread of the pool, and with it every task of
/// the process (thread dumps of a stalled test run showed both threads of a 2-core pool waiting there). On the
/// delegate's queue the wait holds that queue only. Its order also settles a start racing a cancellation: a data task
/// cancelled before `resume()` may never report its end, so the cancellation either comes first and the task never
/// starts, or comes after the start, on the same queue, and cancels it.
private final class DataTaskStart: Sendable {
    private let state = Mutex<(task: URLSessionDataTask?, isCancelled: Bool)>((nil, false))
    private let queue: DispatchQueue

    init(queue: DispatchQueue) { self.queue = queue }

    /// Whether the hop was cancelled.
    var isCancelled: Bool { state.withLock { $0.isCancelled } }

    /// Keeps `task` as the hop's and returns it, unless the hop was cancelled meanwhile: then `task` is cancelled
    /// unstarted and the result is nil. Called on the queue.
    func adopt(_ task: URLSessionDataTask) -> URLSessionDataTask? {
        let adopted = state.withLock { state -> Bool in
            guard !state.isCancelled else { return false }
            state.task = task
            return true
        }
        if !adopted { task.cancel() }
        return adopted ? task : nil
    }

    /// Cancels the hop, from any thread: the task is cancelled on the queue, after its start.
    func cancel() {
        state.withLock { $0.isCancelled = true }
        queue.async { [self] in state.withLock { $0.task }?.cancel() }
    }
}

/// The session's delegate queue: hands each callback straight to a serial dispatch queue, in order.
///
/// URLSession delivers every 16 KiB body chunk through its delegate queue. An `OperationQueue`, even one over a
/// serial dispatch queue, makes an `Operation` per chunk and runs its KVO-style bookkeeping under locks the
/// session's thread and the callback thread contend for (the profile of a 1 MiB loopback fetch showed it);
/// dispatching the block itself keeps the one hop per chunk and drops the rest.
private final class DispatchingOperationQueue: OperationQueue, @unchecked Sendable {
    // @unchecked: `queue` is immutable; the superclass's state is unused.
    private let queue: DispatchQueue

    init(_ queue: DispatchQueue) {
        self.queue = queue
        super.init()
        maxConcurrentOperationCount = 1
        underlyingQueue = queue
    }

    override func addOperation(_ block: @Sendable @escaping () -> Void) {
        queue.async(execute: block)
    }
}

/// What one hop of a fetch ended with.
enum HopOutcome<Value> {
    /// The final response (not a redirect).
    case answered(Value)
    /// A redirect, with its `Location` as sent.
    case redirected(String)

    func map<Other>(_ transform: (Value) -> Other) -> HopOutcome<Other> {
        switch self {
        case .answered(let value): return .answered(transform(value))
        case .redirected(let location): return .redirected(location)
        }
    }
}
