/// A one-shot gate tasks wait at until the test opens it.
public actor AsyncGate {
    public init() {}

    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Waits until the gate is open; returns at once once it is.
    public func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    /// Opens the gate for every waiter, and for good.
    public func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters = []
    }
}
