import Testing
import SwiftRex
@Test func builds() { #expect(Bool(true)) }
