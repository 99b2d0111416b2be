import Foundation
import TestSupport
import Testing

@_spi(Fuzzing) @testable import MediaAssetsAnimation

@Suite("dotLottie v2 parsers under mutation", .offThePool)
struct DotLottieVersion2FuzzTests {
    /// `count` deterministic mutants of `seed`: bytes flipped, removed, duplicated and truncated.
    private func mutants(of seed: String, count: Int, seedValue: UInt64) -> [Data] {
        var generator = SeededGenerator(seed: seedValue)
        let original = Array(seed.utf8)
        let interesting: [UInt8] = Array("{}[]\",:0-eE\\ntf".utf8) + [0, 0xFF, 0xC3]
        return (0..<count).map { _ in
            var bytes = original
            for _ in 0..<Int.random(in: 1...4, using: &generator) where !bytes.isEmpty {
                let index = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<5, using: &generator) {
                case 0: bytes[index] = interesting.randomElement(using: &generator) ?? 0
                case 1: bytes.remove(at: index)
                case 2: bytes.insert(contentsOf: bytes[index..<min(bytes.count, index + 8)], at: index)
                case 3: bytes.removeSubrange(index...)
                default: bytes[index] ^= UInt8.random(in: 1...255, using: &generator)
                }
            }
            return Data(bytes)
        }
    }

    /// Feeds 3,000 mutants of `seed` to `fuzz` and to `parse`: each parses or throws a `DotLottieError`,
    /// and both outcomes occur (the mutants reach past the first byte).
    private func checkMutants(
        of seed: String, seedValue: UInt64, fuzz: (Data) -> Void, parse: (Data) throws -> Void
    ) {
        var outcomes = (parsed: 0, refused: 0)
        for data in mutants(of: seed, count: 3000, seedValue: seedValue) {
            fuzz(data)
            do {
                try parse(data)
                outcomes.parsed += 1
            } catch is DotLottieError {
                outcomes.refused += 1
            } catch {
                Issue.record("untyped error \(error)")
            }
        }
        #expect(outcomes.parsed > 0 && outcomes.refused > 0)
    }

    @Test func themeMutantsParseOrThrowATypedError() {
        checkMutants(of: DotLottieVersion2Fixture().dark, seedValue: 15, fuzz: fuzzDotLottieTheme) {
            _ = try DotLottieTheme.parse($0, id: "dark")
        }
    }

    @Test func stateMachineMutantsParseOrThrowATypedError() {
        checkMutants(of: DotLottieVersion2Fixture().stateMachine, seedValue: 16, fuzz: fuzzDotLottieStateMachine) {
            _ = try DotLottieStateMachine.parse($0, id: "buttons")
        }
    }

    @Test func manifestMutantsParseOrThrowATypedError() {
        let fixture = DotLottieVersion2Fixture()
        for data in mutants(of: fixture.manifest, count: 3000, seedValue: 17) {
            fuzzDotLottieManifest(data)
            var fixtureWithMutant = DotLottieVersion2Fixture()
            fixtureWithMutant.manifest = String(decoding: data, as: UTF8.self)
            do {
                _ = try DotLottie.read(fixtureWithMutant.archive())
            } catch is DotLottieError {
            } catch {
                Issue.record("untyped error \(error)")
            }
        }
    }

    @Test func deepNestingIsRefusedNotRecursedWithoutBound() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let theme = #"{"rules":[{"id":"a","type":"Color","value":"# + deep + "}]}"
        fuzzDotLottieTheme(Data(theme.utf8))
        do {
            _ = try DotLottieTheme.parse(Data(theme.utf8), id: "deep")
            Issue.record("100,000 levels must be refused")
        } catch let DotLottieError.invalidTheme(_, path, reason) {
            #expect(path == "$")
            #expect(reason.contains("nests deeper"))
        } catch {
            Issue.record("untyped error \(error)")
        }
    }
}
