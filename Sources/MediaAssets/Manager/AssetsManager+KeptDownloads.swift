extension AssetsManager {
    // MARK: Downloads kept after their askers left

    // Cancellation stops work that has not happened, never bytes that arrived: what a download or fetch flight
    // returns after every asker left is staged if staged writes have room (`stagedWriteLimit`), then validated in
    // the background by the pipeline that asked and written, so the next ask for it is a storage hit.

    /// Counts a flight that every asker left in `keptDownloads` until it ended and `keep` ran on what it returned,
    /// so `waitForPendingWrites()` and `shutdown()` wait for the bytes it keeps.
    func keepingAbandoned<Value>(
        _ keep: @escaping @Sendable (Value) async -> Void
    ) -> FlightAbandonment<Value> {
        FlightAbandonment(
            begin: { [keptDownloads] in keptDownloads.begin() },
            end: { [self] value in
                if let value { await keep(value) }
                keptDownloads.end()
            })
    }

    /// Keeps a download staged unvalidated that no asker waits for: validated in the background by the pipeline
    /// that asked (`FetchTracking.keepAbandoned`), else committed as the manager's byte fetches commit theirs.
    func keep(_ fetched: FetchedOriginal, tracking: FetchTracking) {
        guard let staged = fetched.staged else { return }
        if let keepAbandoned = tracking.keepAbandoned {
            keepAbandoned(staged, fetched.entry)
        } else {
            pendingWrites.commit(staged)
        }
    }
}
