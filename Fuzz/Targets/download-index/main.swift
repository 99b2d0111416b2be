import FuzzSupport

// The "download-index" fuzz target; the parser call and its seeds are FuzzTargets.downloadIndex.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTargets.downloadIndex.fuzzOneInput(bytes, count)
}

runFuzzer(fuzzOneInput)
