import FuzzSupport

// The "video-frame" fuzz target; the parser call and its seeds are FuzzTargets.videoFrame.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTargets.videoFrame.fuzzOneInput(bytes, count)
}

runFuzzer(fuzzOneInput)
