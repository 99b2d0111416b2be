import FuzzSupport

// The "dotlottie-v2" fuzz target; the parser call and its seeds are FuzzTargets.dotLottieVersion2.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTargets.dotLottieVersion2.fuzzOneInput(bytes, count)
}

runFuzzer(fuzzOneInput)
