import FuzzSupport

// The "http-headers" fuzz target; the parser call and its seeds are FuzzTargets.httpHeaders.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTargets.httpHeaders.fuzzOneInput(bytes, count)
}

runFuzzer(fuzzOneInput)
