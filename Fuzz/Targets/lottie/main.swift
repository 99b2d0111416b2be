import FuzzSupport

// The "lottie" fuzz target; the parser call and its seeds are FuzzTargets.lottie.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTargets.lottie.fuzzOneInput(bytes, count)
}

runFuzzer(fuzzOneInput)
