import ZMQ

print("rexctl")
