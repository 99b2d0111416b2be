import FuzzSupport

// The "png" fuzz target; the parser call and its seeds are FuzzTargets.png.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTargets.png.fuzzOneInput(bytes, count)
}

runFuzzer(fuzzOneInput)
