import FuzzSupport

// The "jpeg" fuzz target; the parser call and its seeds are FuzzTargets.jpeg.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTargets.jpeg.fuzzOneInput(bytes, count)
}

runFuzzer(fuzzOneInput)
