import FuzzSupport

// The "proxy-path" fuzz target; the parser call and its seeds are FuzzTargets.proxyPath.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTargets.proxyPath.fuzzOneInput(bytes, count)
}

runFuzzer(fuzzOneInput)
