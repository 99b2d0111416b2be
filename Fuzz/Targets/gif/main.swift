import FuzzSupport

// The "gif" fuzz target; the parser call and its seeds are FuzzTargets.gif.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTargets.gif.fuzzOneInput(bytes, count)
}

runFuzzer(fuzzOneInput)
