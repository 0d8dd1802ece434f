// SwiftRexTesting: TestClock, ImmediateClock and TestStore.
@_exported import SwiftRex
