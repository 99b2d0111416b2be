import Foundation
import MediaAssetsHTTPServer

extension SampleOrigin {
    /// A request admitted to the log, with the behaviour snapshot it runs under.
    struct Admission {
        var ticket: OriginState.RecordTicket
        var behavior: Behavior
        var injectsFailure: Bool
        /// The release count of the path's gate when the request arrived; `nil` when not gated.
        var gateTicket: Int?
        /// The key the resource is looked up under (the full target when registered with a query).
        var resourceKey: String
    }

    /// Answers one request (the server's handler): logs it, applies the path's behaviour, and sends the answer.
    func exchange(_ request: HTTPRequest, writer: HTTPResponseWriter) async {
        let admission = admit(request)
        guard request.method == "GET" || request.method == "HEAD" else {
            let plan = ResponsePlan.text(status: 405, "only GET and HEAD", headers: [("Allow", "GET, HEAD")])
            return await send(plan, for: request, admission: admission, writer: writer)
        }
        if let gateTicket = admission.gateTicket,
            !(await waitAtGate(path: admission.ticket.path, ticket: gateTicket, id: admission.ticket.sequenceNumber))
        {
            return abandon(admission)
        }
        if admission.behavior.latency > .zero {
            do {
                try await Task.sleep(for: admission.behavior.latency)
            } catch {
                return abandon(admission)
            }
        }
        let plan: ResponsePlan
        if admission.injectsFailure {
            var headers: [(name: String, value: String)] = []
            if let retryAfter = admission.behavior.retryAfter { headers.append(("Retry-After", "\(retryAfter)")) }
            plan = .text(status: admission.behavior.failStatus, "injected failure", headers: headers)
        } else if let resource = state.withLock({ $0.resources[admission.resourceKey] }) {
            plan = .serving(resource, for: request, honoursRange: !admission.behavior.ignoreRange)
        } else if let handler = state.withLock({ $0.handler }) {
            let handled = SampleOrigin.HandledRequest(
                method: request.method, target: request.target, path: request.path, headers: request.headers
            )
            plan = Self.plan(for: handler(handled))
        } else {
            plan = .text(status: 404, "no resource at \(request.path)")
        }
        await send(plan, for: request, admission: admission, writer: writer)
    }

    private func send(
        _ plan: ResponsePlan, for request: HTTPRequest, admission: Admission, writer: HTTPResponseWriter
    ) async {
        // Recorded before the head goes out, so a client holding the response always finds the status logged.
        state.withLock { $0._updateRecord(admission.ticket) { $0.status = plan.status } }
        let outcome = await ResponseSending(
            plan: plan, behavior: admission.behavior, writer: writer, bandwidth: bandwidth
        )
        .send(includingBody: request.method != "HEAD")
        let endTime = Date()
        state.withLock { state in
            // Writes fail at stop() too; that is not the client hanging up.
            let clientClosed = outcome.clientClosedEarly && !state.isStopping
            state._finish(admission.ticket) { record in
                record.status = plan.status
                record.bodyBytesSent = outcome.bodyBytesSent
                record.bodyCompleted = outcome.bodyCompleted
                record.clientClosedEarly = clientClosed
                record.endTime = endTime
            }
        }
    }

    /// Ends a request without a response (the origin is stopping, or the client left while it waited).
    private func abandon(_ admission: Admission) {
        let endTime = Date()
        state.withLock { state in
            state._finish(admission.ticket) { $0.endTime = endTime }
        }
    }

    /// Logs the request, counts it in flight and takes the behaviour snapshot (counting down `failNext`).
    private func admit(_ request: HTTPRequest) -> Admission {
        let startTime = Date()
        return state.withLock { state in
            let key = state.resources[request.target] != nil ? request.target : request.path
            var behavior = state.behaviors[key] ?? .normal
            let injectsFailure = behavior.failNext > 0
            if injectsFailure {
                behavior.failNext -= 1
                state.behaviors[key] = behavior
            }
            state.nextSequenceNumber += 1
            let record = RequestRecord(
                sequenceNumber: state.nextSequenceNumber, connectionID: request.connectionID, method: request.method,
                path: key, target: request.target, headers: request.headers, startTime: startTime,
                status: nil, bodyBytesSent: 0, bodyCompleted: false, clientClosedEarly: false, endTime: nil
            )
            let ticket = state._admit(record)
            let gateTicket = behavior.gated ? state.gateReleases[key, default: 0] : nil
            return Admission(
                ticket: ticket, behavior: behavior, injectsFailure: injectsFailure,
                gateTicket: gateTicket, resourceKey: key)
        }
    }

    /// Holds a request until the gate of `path` is released past `ticket` or removed; `false` when the
    /// origin stops or the request's task is cancelled (its client hung up).
    private func waitAtGate(path: String, ticket: Int, id: Int) async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let verdict = state.withLock { state -> Bool? in
                    if state.isStopping || Task.isCancelled { return false }
                    let gated = state.behaviors[path]?.gated ?? false
                    if !gated || state.gateReleases[path, default: 0] > ticket { return true }
                    state.gateWaiters[path, default: [:]][id] = OriginState.GateWaiter(
                        ticket: ticket, continuation: continuation)
                    return nil
                }
                if let verdict { continuation.resume(returning: verdict) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.gateWaiters[path]?.removeValue(forKey: id) }
            waiter?.continuation.resume(returning: false)
        }
    }
}
