import FuzzSupport

// The "sealed-entry" fuzz target; the parser call and its seeds are FuzzTargets.sealedEntry.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTargets.sealedEntry.fuzzOneInput(bytes, count)
}

runFuzzer(fuzzOneInput)
