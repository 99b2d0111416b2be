import Foundation

extension SampleOrigin {
    /// A request admitted to the log, with the behaviour snapshot it runs under.
    private struct Admission {
        var ticket: OriginState.RecordTicket
        var behavior: Behavior
        var injectsFailure: Bool
        /// The release count of the path's gate when the request arrived; `nil` when not gated.
        var gateTicket: Int?
        /// The key the resource is looked up under (the full target when registered with a query).
        var resourceKey: String
    }

    /// A connection thread: answers requests until the client closes, an answer closes, or stop().
    func serveConnection(fd: Int32, id: Int) {
        var reader = RequestReader(fd: fd, maximumHeadSize: Self.maximumHeadSize)
        var writer = ResponseWriter(fd: fd, pause: { [self] in pause(for: $0) })
        writer.bandwidth = bandwidth
        serving: while true {
            switch reader.next() {
            case .endOfStream:
                break serving
            case let .rejected(status, reason):
                state.withLock { $0.rejectedRequestCount += 1 }
                _ = writer.write(.text(status: status, reason), sendsBody: true, behavior: .normal, keepAlive: false)
                break serving
            case let .request(request):
                guard exchange(request, connectionID: id, writer: writer) else { break serving }
            }
        }
        endConnection(fd: fd, id: id)
    }

    /// Answers one request; returns whether the connection stays open for another.
    private func exchange(_ request: HTTPRequestHead, connectionID: Int, writer: ResponseWriter) -> Bool {
        let admission = admit(request, connectionID: connectionID)
        guard request.method == "GET" || request.method == "HEAD" else {
            let plan = ResponsePlan.text(status: 405, "only GET and HEAD", headers: [("Allow", "GET, HEAD")])
            return send(plan, for: request, admission: admission, writer: writer)
        }
        if let gateTicket = admission.gateTicket,
            !waitAtGate(path: admission.ticket.path, ticket: gateTicket)
        {
            return abandon(admission)
        }
        guard pause(for: admission.behavior.latency) else { return abandon(admission) }
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
        return send(plan, for: request, admission: admission, writer: writer)
    }

    private func send(
        _ plan: ResponsePlan,
        for request: HTTPRequestHead,
        admission: Admission,
        writer: ResponseWriter
    ) -> Bool {
        // Recorded before the head goes out, so a client holding the response always finds the status logged.
        state.withLock { $0._updateRecord(admission.ticket) { $0.status = plan.status } }
        let outcome = writer.write(
            plan, sendsBody: request.method != "HEAD", behavior: admission.behavior, keepAlive: request.wantsKeepAlive
        )
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
        return outcome.connectionReusable
    }

    /// Ends a request without a response (the origin is stopping).
    private func abandon(_ admission: Admission) -> Bool {
        let endTime = Date()
        state.withLock { state in
            state._finish(admission.ticket) { $0.endTime = endTime }
        }
        return false
    }

    /// Logs the request, counts it in flight and takes the behaviour snapshot (counting down `failNext`).
    private func admit(_ request: HTTPRequestHead, connectionID: Int) -> Admission {
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
                sequenceNumber: state.nextSequenceNumber, connectionID: connectionID, method: request.method,
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

    /// Holds a request until the gate of `path` is released past `ticket` or removed; `false` on stop.
    private func waitAtGate(path: String, ticket: Int) -> Bool {
        while true {
            let generation = wakeups.currentGeneration
            let verdict = state.withLock { state -> Bool? in
                if state.isStopping { return false }
                let gated = state.behaviors[path]?.gated ?? false
                if !gated || state.gateReleases[path, default: 0] > ticket { return true }
                return nil
            }
            if let verdict { return verdict }
            wakeups.wait(whileGenerationIs: generation, until: nil)
        }
    }
}
