import Foundation

/// Limits that keep one fuzz input fast: 1 MiB, 64 levels, 10,000 values.
private let fuzzParsingOptions = LottieParsingOptions(
    maximumInputSize: 1 << 20, maximumNestingDepth: 64, maximumLayerCount: 10_000, maximumAssetCount: 10_000,
    maximumMarkerCount: 10_000
)

/// Feeds arbitrary bytes to the dotLottie v2 theme parser (`t/<id>.json`); it throws or returns, never crashes.
///
/// Public for the libFuzzer targets in `Fuzz/` (a separate package).
@_spi(Fuzzing) public func fuzzDotLottieTheme(_ data: Data) {
    _ = try? DotLottieTheme.parse(data, id: "fuzz", options: fuzzParsingOptions)
}

/// Feeds arbitrary bytes to the dotLottie v2 state machine parser and validator (`s/<id>.json`); it throws
/// or returns, never crashes.
///
/// Public for the libFuzzer targets in `Fuzz/` (a separate package).
@_spi(Fuzzing) public func fuzzDotLottieStateMachine(_ data: Data) {
    _ = try? DotLottieStateMachine.parse(data, id: "fuzz", options: fuzzParsingOptions)
}

/// Feeds arbitrary bytes to the dotLottie v2 manifest reader (animations, themes, state machines and
/// their cross references); it throws or returns, never crashes.
///
/// Public for the libFuzzer targets in `Fuzz/` (a separate package).
@_spi(Fuzzing) public func fuzzDotLottieManifest(_ data: Data) {
    guard var manifest = try? DotLottieManifest.parse(data, options: fuzzParsingOptions) else { return }
    try? manifest.readVersion2Fields(from: data, options: fuzzParsingOptions)
}

/// Feeds arbitrary bytes to one of the dotLottie v2 parsers: the first byte picks the theme (0), state machine
/// (1) or manifest (2) parser, modulo 3, and the rest is that part's JSON. One libFuzzer target covers all three.
///
/// Public for the libFuzzer targets in `Fuzz/` (a separate package).
@_spi(Fuzzing) public func fuzzDotLottieVersion2(_ data: Data) {
    guard let selector = data.first else { return }
    let json = data.dropFirst()
    switch selector % 3 {
    case 0: fuzzDotLottieTheme(json)
    case 1: fuzzDotLottieStateMachine(json)
    default: fuzzDotLottieManifest(json)
    }
}
