import RexNode

print("nodebench")
