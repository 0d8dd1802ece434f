import Testing

@Test func rexnodeBuilds() { #expect(Bool(true)) }
