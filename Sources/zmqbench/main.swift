import ZMQ

print("zmqbench: libzmq \(ZMQVersion.current)")
