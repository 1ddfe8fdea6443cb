/// Compact JWS tokens signed with `RS256` (RFC 7515 §3.1, RFC 7519): header
/// `{"alg":"RS256","kid":…,"typ":"JWT"}`, the JSON payload, and the signature, each base64url
/// without padding. These are the SIWC issuer's ID and access tokens; unlike the Codex issuer's
/// unsigned ones (``JWTFactory``) a client must verify them against the JWKS.
enum SignedJWT {
    /// `payload` signed with `key`. `keyID` overrides the header's `kid` (a test control makes
    /// tokens with an unknown `kid`); the signature is always `key`'s. An empty signature segment
    /// means the system's crypto failed, which no verifier accepts.
    static func sign(_ payload: JSONValue, with key: RSASigningKey, keyID: String? = nil) -> String {
        let header: JSONValue = [Wire.algorithm: .string(Wire.rs256), Wire.keyID: .string(keyID ?? key.keyID), Wire.type: "JWT"]
        let signingInput = Base64URL.encode(header.data) + "." + Base64URL.encode(payload.data)
        let signature = key.sign(Array(signingInput.utf8)) ?? []
        return signingInput + "." + Base64URL.encode(signature)
    }

    private enum Wire {
        static let algorithm = "alg"
        static let rs256 = "RS256"
        static let keyID = "kid"
        static let type = "typ"
    }
}
