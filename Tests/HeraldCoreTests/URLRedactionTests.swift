import HeraldCore
import Testing

@Suite struct URLRedactionTests {
    @Test(arguments: [
        ("https://user:pass@example.com/hook?api_key=k1", "https://***@example.com/hook?***"),
        ("feedback webhook: http://u@h:8080/p?x=1#frag next", "feedback webhook: http://***@h:8080/p?***#frag next"),
        ("url: \"http://a:b@h/?k=v\" and etcd+https://c:d@e:2379", "url: \"http://***@h/?***\" and etcd+https://***@e:2379"),
        ("https://example.com/path", "https://example.com/path"),
        ("no url at all: a://", "no url at all: a://"),
        ("p@ss://x", "p@ss://x"),
        ("[\"http://x:y@h1\", \"http://h2?t=1\"]", "[\"http://***@h1\", \"http://h2?***\"]"),
        ("http://[::1]:8080/hook?api_key=S", "http://[::1]:8080/hook?***"),
        ("https://u:pa/ss@h/x and http://u:p,w@h", "https://***@h/x and http://***@h"),
        ("http://user@h", "http://***@h"),
        ("[http://h?k=v, http://x]", "[http://h?*** http://x]"),
    ])
    func userInfoAndQueriesAreMasked(text: String, expected: String) {
        #expect(URLRedaction.redact(text) == expected)
    }

    @Test func keyMaterialPrintsOnlyItsName() {
        struct Holder: KeyMaterial { let secret = "hunter2" }
        struct Outer { let holder = Holder() }
        var dumped = ""
        dump(Outer(), to: &dumped)
        for text in [String(describing: Holder()), String(reflecting: Holder()), "\(Outer())", String(reflecting: Outer()), dumped] {
            #expect(!text.contains("hunter2"), "\(text)")
        }
        #expect("\(Holder())" == "Holder(redacted)")
    }
}
