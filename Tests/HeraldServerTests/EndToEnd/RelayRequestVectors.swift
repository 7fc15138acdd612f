import Foundation

/// The relay page's vectors (webpush-relay.md §8): RFC 8291's body and the computed `aesgcm` body
/// with their extended z85 fields.
enum RelayRequestVectors {
    static let rfc8291Body = base64URL(
        "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"
    )
    static let aesgcmBody = base64URL("4qwOLFm_mNy0vf1A8f3Bm6B5UD15y3aV_xZy14pixUhcPTIoZKHzq5i3dZ6PzqSMxBI_-VDUZ4jW04M")
    static let rfc8291P =
        "3#tZwT.i]P0%{LFmT1x&000Mgk)mfy]S5C^AGJ#6sr)M4rfSCffL#%TgtxvoNO$RBF/>LaDv71Qv7Es4D6?XuLiB#F0532sQkFg7yRa&M(<@VN?DJsoX]yV$Q]>ca2{mUy]r+[>o5kxhDkTMhUW3>AtpIlev+1N<rZD7IFH>R#]E=AMXngoL"
    static let k = "1PyjHS$1ulKXJk=bLKo0L-F9:zitbV*QTeHqZ=gdap.L2DWARqX/q]tM@<VT>@A!+fea3kIS<LBYlJD70f"
    static let s = "3#tZwT.i]P0%{LFmT1x&"

    static func base64URL(_ text: String) -> Data {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)!
    }
}
