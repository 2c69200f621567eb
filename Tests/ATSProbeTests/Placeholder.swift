import Testing

@Test func placeholderATSProbeTests() {}
