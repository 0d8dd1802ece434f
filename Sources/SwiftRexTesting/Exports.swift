// The test kit is used alongside the core: importing it brings SwiftRex too.
@_exported public import SwiftRex
