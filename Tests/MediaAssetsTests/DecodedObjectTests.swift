import Foundation
import MediaAssets
import Testing

@Suite("DecodedObject")
struct DecodedObjectTests {
    @Test func readsBackUnderTheTypeItWasStoredAs() {
        // Given objects made from a typed value and from an existential
        let typed = DecodedObject([1, 2, 3], cost: 24)
        let erased: any Sendable = "a parsed model"
        let fromExistential = DecodedObject(erased, cost: 14)

        // Then each reads back as the type of the value it holds, and as nothing else
        #expect(typed.value(as: [Int].self) == [1, 2, 3])
        #expect(typed.value(as: String.self) == nil)
        #expect(fromExistential.value(as: String.self) == "a parsed model")
        #expect(fromExistential.value as? String == "a parsed model")
        #expect(typed.cost == 24)
    }

    @Test func settingTheValueKeepsTheNewType() {
        // Given an object holding a string
        var object = DecodedObject("text", cost: 4)

        // When its value is replaced through the existential setter
        object.value = 42

        // Then it reads back as the new type only
        #expect(object.value(as: Int.self) == 42)
        #expect(object.value(as: String.self) == nil)
        #expect(object.value as? Int == 42)
    }
}
