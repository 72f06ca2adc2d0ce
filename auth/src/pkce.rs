//! PKCE (RFC 7636, `S256` only) and the random `state` of an authorization request.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use sha2::{Digest, Sha256};

/// A PKCE verifier and its `S256` challenge.
#[derive(Clone, Debug)]
pub(crate) struct Pkce {
    /// Sent with the token request.
    pub verifier: String,
    /// Sent with the authorization request.
    pub challenge: String,
}

impl Pkce {
    /// A fresh verifier (32 random bytes, 43 characters) and its challenge.
    pub fn generate() -> Self {
        let verifier = random_token();
        let challenge = s256(&verifier);
        Self {
            verifier,
            challenge,
        }
    }
}

/// `BASE64URL(SHA256(verifier))` without padding.
pub(crate) fn s256(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// 32 random bytes, base64url: for verifiers and `state`.
pub(crate) fn random_token() -> String {
    let bytes: [u8; 32] = rand::random();
    URL_SAFE_NO_PAD.encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s256_matches_an_independent_reference() {
        // Reference: base64.urlsafe_b64encode(hashlib.sha256(v).digest()).rstrip(b"=") in Python.
        assert_eq!(
            s256("dBjftJeZ4CVP-mJ92IbWNn9y0dvVJg-CWS5LQeAQW0M"),
            "IcHeM0WD5tbyx7SmG2xu1ARQH1K49eXNcYhzG7a88FQ"
        );
    }

    #[test]
    fn verifiers_are_fresh_and_in_the_allowed_length() {
        let a = Pkce::generate();
        let b = Pkce::generate();
        assert_ne!(a.verifier, b.verifier);
        assert!((43..=128).contains(&a.verifier.len()));
        assert_eq!(a.challenge, s256(&a.verifier));
    }
}
