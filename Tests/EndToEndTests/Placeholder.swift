import Testing

@Test func placeholderEndToEndTests() {}
