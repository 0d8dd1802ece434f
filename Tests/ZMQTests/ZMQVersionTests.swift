import Testing
import ZMQ

@Test func linksAgainstLibzmq4() {
    #expect(ZMQVersion.current.major == 4)
}
