// RexNode: a SwiftRex store on a reactor thread that owns ZeroMQ sockets.
