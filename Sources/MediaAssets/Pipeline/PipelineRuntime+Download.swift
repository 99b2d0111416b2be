import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: The download: retries, transfer, length checks

extension PipelineRuntime {
    /// Sends `request` through the loader with the retry policy and returns a checked response.
    ///
    /// Use this for requests the cache does not handle as whole entries (byte ranges): it counts
    /// origin requests, retries and bytes like every fetch, checks the body length, and makes only the
    /// connections `configuration.fetchPolicy` allows.
    package func load(
        _ request: URLRequest, progress: (@Sendable (FetchProgress) -> Void)? = nil
    ) async throws -> DataResponse {
        try await retrying(request, inDownloadSlots: false) { try await loadAttempt(request, progress: progress) }
    }

    /// Sends `request` through the loader and returns as soon as the response head arrived, the body
    /// streaming behind it.
    ///
    /// Transient failures and statuses are retried per the retry policy until a head arrives (never once
    /// body bytes were handed on). Origin requests and bytes are counted like every fetch, and the body is
    /// checked as it arrives against `Configuration.maxResponseSize` and, when it ends, against its
    /// `Content-Length`; its transport errors arrive as `AssetsError.networkFailure`. Only the connections
    /// `configuration.fetchPolicy` allows are made. Use this where a reader wants the first bytes before the
    /// last (video, progressive previews).
    ///
    /// - Throws: `AssetsError` and `CancellationError` before the head, as `load(_:progress:)`.
    package func stream(_ request: URLRequest) async throws -> StreamedResponse {
        try await retrying(request, inDownloadSlots: false) {
            try await loader.stream(request, policy: configuration.fetchPolicy)
        } finish: { response in
            checkingBody(of: response, requested: request.url)
        }
    }

    private func loadAttempt(
        _ request: URLRequest, progress: (@Sendable (FetchProgress) -> Void)?
    ) async throws -> DataResponse {
        let response = try await loader.load(request, policy: configuration.fetchPolicy, progress: progress)
        fetchCounters.withLock { $0.bytesDownloaded += response.data.count }
        try checkLength(received: response.data.count, of: response.head)
        return response
    }

    /// `response` with its body counted and checked as it arrives: the size limit on every piece, the
    /// `Content-Length` at the end, transport errors wrapped.
    private func checkingBody(of response: StreamedResponse, requested: URL?) -> StreamedResponse {
        let url = requested ?? response.head.url
        let head = response.head
        let received = Mutex(0)
        let limit = configuration.maxResponseSize
        var response = response
        response.body = response.body.checking(
            piece: { [self] piece in
                let total = received.withLock { received -> Int in
                    received += piece.count
                    return received
                }
                fetchCounters.withLock { $0.bytesDownloaded += piece.count }
                if total > limit { throw AssetsError.responseTooLarge(url: head.url, limit: limit) }
            },
            end: { [self] in try checkLength(received: received.withLock { $0 }, of: head) },
            failure: { [self] error in
                if Self.isCancellation(error) { return CancellationError() }
                return wrap(error, url: url)
            }
        )
        return response
    }

    /// Runs attempts of `request` until one answers with a status that is not transient, or the retry policy
    /// gives up, and returns what `finish` makes of that answer.
    ///
    /// With `inDownloadSlots`, each attempt and its `finish` hold a download slot (the host's, then the
    /// manager's); the wait between attempts (the backoff, or the `Retry-After` a 429 or 503 asks for) holds
    /// none, and the next attempt queues again at the ask's priority as it is then.
    private func retrying<Response: Sendable, Result: Sendable>(
        _ request: URLRequest, inDownloadSlots: Bool, _ attempt: () async throws -> Response,
        finish: (Response) async throws -> Result
    ) async throws -> Result where Response: RespondingWithHead {
        let policy = configuration.retryPolicy
        let url = request.url ?? URL(fileURLWithPath: "/")
        var attempts = 0
        while true {
            attempts += 1
            let mayRetry = attempts < policy.maxAttempts
            func run() async throws -> RetryOutcome<Result> {
                fetchCounters.withLock { $0.originRequests += 1 }
                let response: Response
                do {
                    response = try await attempt()
                } catch {
                    if Self.isRefusalBeforeConnecting(error, of: url) {
                        // Counted as a request when it started; it never reached the origin.
                        fetchCounters.withLock {
                            $0.originRequests -= 1
                            $0.refusals += 1
                        }
                    }
                    if Self.isCancellation(error) || Task.isCancelled { throw CancellationError() }
                    guard mayRetry, RetryPolicy.isTransient(error) else { throw wrap(error, url: url) }
                    return .retry(after: policy.delay(afterAttempt: attempts, retryAfter: nil))
                }
                let head = response.head
                if mayRetry, RetryPolicy.isTransient(status: head.statusCode) {
                    let retryAfter = RetryPolicy.retryAfter(
                        head.header("retry-after"), date: head.header("date"), now: configuration.now())
                    return .retry(after: policy.delay(afterAttempt: attempts, retryAfter: retryAfter))
                }
                return .finished(try await finish(response))
            }
            let outcome = inDownloadSlots ? try await inDownloadSlot(for: url, run) : try await run()
            switch outcome {
            case .finished(let result): return result
            case .retry(let delay): try await pause(delay)
            }
        }
    }

    /// Runs attempts of `request` as `retrying(_:inDownloadSlots:_:finish:)` does, returning the answer itself.
    private func retrying<Response: Sendable & RespondingWithHead>(
        _ request: URLRequest, inDownloadSlots: Bool, _ attempt: () async throws -> Response
    ) async throws -> Response {
        try await retrying(request, inDownloadSlots: inDownloadSlots, attempt, finish: { $0 })
    }

    /// Runs `operation` holding a download slot: its host's first (when the fetch policy bounds hosts), then
    /// one of the manager's, so that a busy host never holds the manager's slots while its downloads queue.
    private func inDownloadSlot<T: Sendable>(for url: URL, _ operation: () async throws -> T) async throws -> T {
        guard let hostLimiter else { return try await fetchLimiter.run(operation) }
        return try await hostLimiter.run(host: HostLimiter.host(of: url)) { try await fetchLimiter.run(operation) }
    }

    private static func isCancellation(_ error: any Error) -> Bool {
        error is CancellationError || (error as? URLError)?.code == .cancelled
    }

    /// Whether `error` is the fetch policy refusing `url` itself, before any connection: a refusal at a redirect
    /// names the redirect's target, or the redirect limit or loop, after the first hop reached the origin.
    private static func isRefusalBeforeConnecting(_ error: any Error, of url: URL) -> Bool {
        guard case .fetchRefused(let refused, let refusal)? = error as? AssetsError, refused == url else {
            return false
        }
        switch refusal {
        case .scheme, .host, .address: return true
        case .redirectLimit, .redirectLoop: return false
        }
    }

    /// Loads `urlRequest` in a download slot, retrying outside it; with `streamingPieces`, streams the body and
    /// passes each piece of a complete representation (200, 203) on with its progress report.
    func transfer(
        _ urlRequest: URLRequest, streamingPieces: Bool, report: @escaping @Sendable (FetchProgress) -> Void
    ) async throws -> DataResponse {
        guard streamingPieces else {
            return try await retrying(urlRequest, inDownloadSlots: true) {
                try await loadAttempt(urlRequest, progress: report)
            }
        }
        return try await retrying(urlRequest, inDownloadSlots: true) {
            try await loader.stream(urlRequest, policy: configuration.fetchPolicy)
        } finish: { response in
            let response = checkingBody(of: response, requested: urlRequest.url)
            let head = response.head
            let passesPieces = head.statusCode == 200 || head.statusCode == 203
            let expected = head.contentLength.map(Int64.init)
            // Grown as bytes arrive: a declared length is not trusted with an allocation.
            var data = Data()
            for try await piece in response.body {
                data.append(piece)
                report(
                    FetchProgress(
                        receivedBytes: Int64(data.count), expectedBytes: expected, piece: passesPieces ? piece : nil))
            }
            return DataResponse(url: head.url, statusCode: head.statusCode, headers: head.headers, data: data)
        }
    }

    private func checkLength(received: Int, of head: ResponseHead) throws {
        // Loaders other than URLSessionLoader may not enforce the limit themselves.
        if received > configuration.maxResponseSize {
            throw AssetsError.responseTooLarge(url: head.url, limit: configuration.maxResponseSize)
        }
        guard let declared = head.contentLength, head.header("content-encoding") == nil,
            head.statusCode != 304, declared != received
        else { return }
        throw AssetsError.lengthMismatch(url: head.url, expected: declared, received: received)
    }

    private func pause(_ seconds: TimeInterval) async throws {
        fetchCounters.withLock { $0.retries += 1 }
        if seconds > 0 { try await Task.sleep(nanoseconds: UInt64(seconds * 1e9)) }
    }

    private func wrap(_ error: Error, url: URL) -> Error {
        if error is AssetsError { return error }
        if let urlError = error as? URLError {
            return AssetsError.networkFailure(
                url: url, code: urlError.code.rawValue, reason: urlError.localizedDescription)
        }
        return AssetsError.networkFailure(url: url, code: 0, reason: String(describing: error))
    }
}

/// What one attempt of a fetch came to: an answer to return, or a wait before the next attempt.
private enum RetryOutcome<Result: Sendable>: Sendable {
    case finished(Result)
    case retry(after: TimeInterval)
}

/// A response whose status decides whether to retry it.
protocol RespondingWithHead {
    var head: ResponseHead { get }
}

extension DataResponse: RespondingWithHead {}
extension StreamedResponse: RespondingWithHead {}
