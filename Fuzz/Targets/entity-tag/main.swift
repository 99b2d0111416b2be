import FuzzSupport

// The "entity-tag" fuzz target; the parser call and its seeds are FuzzTargets.entityTag.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTargets.entityTag.fuzzOneInput(bytes, count)
}

runFuzzer(fuzzOneInput)
