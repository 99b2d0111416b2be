import FuzzSupport

// The "dotlottie" fuzz target; the parser call and its seeds are FuzzTargets.dotLottie.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTargets.dotLottie.fuzzOneInput(bytes, count)
}

runFuzzer(fuzzOneInput)
