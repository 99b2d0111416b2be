import Foundation

// Usage: benchmarks [--filter GROUP] [--json PATH]   (--burst MODE, --decode-peak FILE, --animation-window MODE,
// --video-proxy-child URL DIR, --poster-peak URL DIR: internal, one row's child process)
// --disk-million adds 1,000,000 entries to the disk-scale rows (about a minute to write them).
// Groups run in order; --filter keeps the groups whose name contains GROUP.
let arguments = CommandLine.arguments
func option(_ name: String) -> String? {
    arguments.firstIndex(of: name).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
}

// A burst row's child process (see PipelineBenchmarks.swift).
if let mode = option("--burst") {
    try await runBurstInThisProcess(mode: mode)
    exit(0)
}
// A peak-memory row's child process (see DisplaySizeBenchmarks.swift).
if let path = option("--decode-peak") {
    try runDecodePeakInThisProcess(path: path, mode: option("--mode") ?? "display")
    exit(0)
}
// An animation-window row's child process (see AnimationWindowBenchmarks.swift).
if let mode = option("--animation-window") {
    try await runAnimationWindowInThisProcess(mode: mode)
    exit(0)
}
// The proxy of the video-proxy rows, in a process of its own (see VideoProxyBenchmarks.swift).
if let origin = option("--video-proxy-child"), let index = arguments.firstIndex(of: "--video-proxy-child"),
    index + 2 < arguments.count
{
    try await runVideoProxyChild(origin: origin, cache: arguments[index + 2])
    exit(0)
}

// A poster row's child process (see VideoFeedBenchmarks.swift).
if let url = option("--poster-peak"), let index = arguments.firstIndex(of: "--poster-peak"), index + 2 < arguments.count
{
    try await runPosterPeakInThisProcess(url: url, cache: arguments[index + 2])
    exit(0)
}

let groups: [(name: String, run: (BenchmarkTable) async throws -> Void)] = [
    ("memory", runMemoryBenchmarks),
    ("disk", runDiskBenchmarks),
    ("disk-scale", runDiskScaleBenchmarks),
    ("sqlite", runSQLiteBenchmarks),
    ("sqlite-scale", runSQLiteScaleBenchmarks),
    ("storage-removal", runStorageRemovalBenchmarks),
    ("encryption", runEncryptionBenchmarks),
    ("redis", runRedisBenchmarks),
    ("loading", runLoadingBenchmarks),
    ("image-codecs", runImageCodecBenchmarks),
    ("image-processing", runImageProcessingBenchmarks),
    ("avatar-pipeline", runAvatarPipelineBenchmarks),
    ("avatar-memory", runAvatarMemoryBenchmarks),
    ("pipeline", runPipelineBenchmarks),
    ("service", runServiceBenchmarks),
    ("list-scroll", runScrollBenchmarks),
    ("animation", runAnimationParsingBenchmarks),
    ("animation-assets", runAnimationAssetBenchmarks),
    ("animation-window", runAnimationWindowBenchmarks),
    ("video", runVideoBenchmarks),
    ("video-streaming", runVideoStreamingBenchmarks),
    ("video-proxy", runVideoProxyBenchmarks),
    ("video-feed", runVideoFeedBenchmarks),
]

let table = BenchmarkTable()
print(BenchmarkTable.header)
for group in groups where option("--filter").map({ group.name.contains($0) }) ?? true {
    try await group.run(table)
}
if let path = option("--json") {
    try table.writeJSON(to: path)
    print("wrote \(table.rows.count) rows to \(path)")
}
