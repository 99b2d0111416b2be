import Foundation
import TestSupport
import Testing

@testable import MediaAssets

@Suite("DiskCache index records")
struct DiskRecordsTests {
    private func record(size: Int, inode: UInt64 = 1) -> DiskRecords.Record {
        DiskRecords.Record(
            size: size, lastAccess: Date(timeIntervalSinceReferenceDate: 10), expiry: .unknown, inode: inode,
            isVerified: false
        )
    }

    @Test func randomOperationsAgreeWithADictionaryAndAnOrderedList() {
        // Given names from a small space (so probe runs collide, grow and shrink) and a seeded generator
        var generator = SeededGenerator(seed: 16)
        let names = (0..<300).map { EntryName(high: UInt64($0 % 7), low: UInt64($0) &* 0x9E37_79B9) }
        var records = DiskRecords()
        var model: [EntryName: Int] = [:]
        var order: [EntryName] = []  // most recent first

        // When inserts, replacements, removals and evictions run in random order
        for step in 0..<20_000 {
            let name = names[Int.random(in: 0..<names.count, using: &generator)]
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<5:
                let size = Int.random(in: 1...1_000, using: &generator)
                records.set(record(size: size), for: name)
                model[name] = size
                order.removeAll { $0 == name }
                order.insert(name, at: 0)
            case 5..<8:
                #expect(records.remove(name)?.size == model.removeValue(forKey: name))
                order.removeAll { $0 == name }
            case 8:
                let removed = records.removeLeastRecent()
                #expect(removed?.name == order.last)
                if let last = order.popLast() { model[last] = nil }
            default:
                let replaced = records.replaceInPlace(record(size: 5, inode: 9), for: name)
                #expect(replaced == (model[name] != nil))
                if replaced { model[name] = 5 }
            }

            // Then every step agrees with the model
            if step % 97 == 0 { records.checkInvariants() }
            #expect(records.count == model.count)
            #expect(records.record(for: name)?.size == model[name])
        }
        records.checkInvariants()
        #expect(records.namesByRecency == order)
        #expect(records.totalSize == model.values.reduce(0, +))
        for name in names { #expect(records.record(for: name)?.size == model[name]) }
    }

    @Test func expiryAndDatesRoundTrip() {
        // Given records with each kind of expiry
        var records = DiskRecords()
        let expiries: [DiskIndex.Expiry] = [.unknown, .never, .at(Date(timeIntervalSinceReferenceDate: 12.5))]
        for (index, expiry) in expiries.enumerated() {
            var value = record(size: index + 1, inode: UInt64(index))
            value.expiry = expiry
            value.isVerified = index == 1
            records.set(value, for: EntryName(high: 0, low: UInt64(index)))
        }

        // Then each reads back as stored
        for (index, expiry) in expiries.enumerated() {
            let found = records.record(for: EntryName(high: 0, low: UInt64(index)))
            #expect(found?.expiry == expiry)
            #expect(found?.isVerified == (index == 1))
            #expect(found?.lastAccess == Date(timeIntervalSinceReferenceDate: 10))
        }
    }

    @Test func entryNamesRoundTripThroughFileNames() {
        // Given the file name of a key
        let name = EntryName(key: "https://example.test/a.jpg")
        let fileName = DiskCache.fileName(for: "https://example.test/a.jpg")

        // Then it is the name caches written before had (hex of the two hashes), it parses back, and
        // other names do not
        func hex(_ value: UInt64) -> String {
            let digits = String(value, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }
        let key = "https://example.test/a.jpg"
        #expect(fileName == hex(XXHash64.hash(key, seed: 0)) + hex(XXHash64.hash(key, seed: 0x9E37_79B9_7F4A_7C15)))
        #expect(fileName.count == 32)
        #expect(EntryName(fileName: fileName) == name)
        #expect(EntryName(fileName: fileName.uppercased()) == nil || fileName.uppercased() == fileName)
        #expect(EntryName(fileName: String(fileName.dropLast())) == nil)
        #expect(EntryName(fileName: fileName + ".tmp") == nil)
        #expect(EntryName(fileName: "g" + fileName.dropFirst()) == nil)
    }
}
