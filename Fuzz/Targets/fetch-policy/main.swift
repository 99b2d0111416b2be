import FuzzSupport

// The "fetch-policy" fuzz target; the parser call and its seeds are FuzzTargets.fetchPolicy.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTargets.fetchPolicy.fuzzOneInput(bytes, count)
}

runFuzzer(fuzzOneInput)
