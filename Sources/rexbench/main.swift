import SwiftRex
print("rexbench")
