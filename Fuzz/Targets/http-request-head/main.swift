import FuzzSupport

// The "http-request-head" fuzz target; the parser call and its seeds are FuzzTargets.httpRequestHead.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTargets.httpRequestHead.fuzzOneInput(bytes, count)
}

runFuzzer(fuzzOneInput)
