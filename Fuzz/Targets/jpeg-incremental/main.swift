import FuzzSupport

// The "jpeg-incremental" fuzz target; the parser call and its seeds are FuzzTargets.jpegIncremental.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTargets.jpegIncremental.fuzzOneInput(bytes, count)
}

runFuzzer(fuzzOneInput)
