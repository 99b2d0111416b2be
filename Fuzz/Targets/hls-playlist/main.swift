import FuzzSupport

// The "hls-playlist" fuzz target; the parser call and its seeds are FuzzTargets.hlsPlaylist.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTargets.hlsPlaylist.fuzzOneInput(bytes, count)
}

runFuzzer(fuzzOneInput)
