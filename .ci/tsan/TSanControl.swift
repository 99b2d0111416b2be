// The control for .ci/tsan: `locked` is a correct program (a counter under a contended Mutex) that TSan must
// not report once the shim is preloaded; `racy` adds a deliberate race (a counter each thread guards with
// its own Mutex) that TSan must still report, so the shim cannot be silencing TSan wholesale.
import Dispatch
import Synchronization

final class Counters: @unchecked Sendable {
    var guarded = 0
    var unguarded = 0
}

let racy = CommandLine.arguments.dropFirst().first == "racy"
let counters = Counters()
let shared = Mutex(())
let threads = 4, rounds = 20_000

DispatchQueue.concurrentPerform(iterations: threads) { _ in
    let own = Mutex(())
    for _ in 0..<rounds {
        shared.withLock { _ in counters.guarded += 1 }
        if racy { own.withLock { _ in counters.unguarded += 1 } }
    }
}
print("guarded \(counters.guarded) of \(threads * rounds)")
