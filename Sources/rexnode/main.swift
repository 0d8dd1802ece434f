import RexNode

print("rexnode")
