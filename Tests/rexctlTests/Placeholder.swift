import Testing

@Test func rexctlBuilds() { #expect(Bool(true)) }
