import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct PackageLayoutTests {
    @Test("the CLI sources are where the package expects them")
    func layout() {
        let root = String(#filePath.split(separator: "/Tests/")[0])
        #expect(access("/" + root + "/Sources/wire/main.swift", F_OK) == 0)
    }
}
