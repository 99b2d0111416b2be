import FuzzSupport

// The "thumbhash" fuzz target; the parser call and its seeds are FuzzTargets.thumbHash.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTargets.thumbHash.fuzzOneInput(bytes, count)
}

runFuzzer(fuzzOneInput)
