import Foundation
import Testing

@testable import MediaAssets

@Suite("AccessTimeBatch")
struct AccessTimeBatchTests {
    @Test func dueOnceAtTheThresholdUntilTaken() {
        // Given a batch due at three pending times
        var batch = AccessTimeBatch<String>(threshold: 3)
        let date = Date(timeIntervalSinceReferenceDate: 1_000)

        // When reads are recorded, then only the one that reaches the threshold makes it due
        #expect(batch.record("a", at: date) == false)
        #expect(batch.record("a", at: date + 1) == false)
        #expect(batch.record("b", at: date) == false)
        #expect(batch.record("c", at: date) == true)
        #expect(batch.record("d", at: date) == false)

        // And taking it returns the latest time per entry and starts a new batch
        let taken = batch.take()
        #expect(taken == ["a": date + 1, "b": date, "c": date, "d": date])
        #expect(batch.count == 0)
        for name in ["e", "f"] { #expect(batch.record(name, at: date) == false) }
        #expect(batch.record("g", at: date) == true)
    }

    @Test func forgettingSavedTimesKeepsNewerReads() {
        // Given two pending times, saved, and one read again after the save began
        var batch = AccessTimeBatch<Int64>(threshold: 100)
        let date = Date(timeIntervalSinceReferenceDate: 0)
        _ = batch.record(1, at: date)
        _ = batch.record(2, at: date)
        let saved = batch.pending
        _ = batch.record(2, at: date + 5)

        // When the saved times are forgotten, then the newer read stays pending
        batch.forget(saved: saved)
        #expect(batch.pending == [2: date + 5])
        batch.forget(2)
        #expect(batch.count == 0)
    }
}
