import FuzzSupport

// The "animation-frames" fuzz target; the parser call and its seeds are FuzzTargets.animationFrames.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTargets.animationFrames.fuzzOneInput(bytes, count)
}

runFuzzer(fuzzOneInput)
