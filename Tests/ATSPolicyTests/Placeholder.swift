import Testing

@Test func placeholderATSPolicyTests() {}
