//! JSON Web Keys (RFC 7517, 7518, 8037) as signature-verification keys for the JWT verifier
//! ([`super::JwtVerifier`]). Only asymmetric JWS algorithms exist here: `none` and the HMAC
//! family (`HS*`) have no [`Alg`] value, so a token naming them can never meet a key (the
//! classic algorithm-confusion attack verifies an `HS256` MAC keyed with a public key). A key
//! verifies only the algorithms its type and curve fit, and only its own `alg` when it names one.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use ring::signature::{self, RsaPublicKeyComponents, UnparsedPublicKey};
use serde_json::Value;

/// Most keys read from one JWKS (the rest are ignored).
const MAX_KEYS: usize = 64;

/// A JWS signature algorithm this verifier accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Alg {
    Rs256,
    Rs384,
    Rs512,
    Ps256,
    Ps384,
    Ps512,
    Es256,
    Es384,
    EdDsa,
}

impl Alg {
    /// Every supported algorithm (the default allow-list).
    pub const ALL: [Alg; 9] = [
        Alg::Rs256,
        Alg::Rs384,
        Alg::Rs512,
        Alg::Ps256,
        Alg::Ps384,
        Alg::Ps512,
        Alg::Es256,
        Alg::Es384,
        Alg::EdDsa,
    ];

    /// The algorithm named `name` (case-sensitive, as RFC 7518 registers them).
    pub fn parse(name: &str) -> Option<Alg> {
        Self::ALL.into_iter().find(|a| a.name() == name)
    }

    /// The registered name.
    pub fn name(self) -> &'static str {
        match self {
            Alg::Rs256 => "RS256",
            Alg::Rs384 => "RS384",
            Alg::Rs512 => "RS512",
            Alg::Ps256 => "PS256",
            Alg::Ps384 => "PS384",
            Alg::Ps512 => "PS512",
            Alg::Es256 => "ES256",
            Alg::Es384 => "ES384",
            Alg::EdDsa => "EdDSA",
        }
    }
}

/// The public material of a key.
#[derive(Clone, Debug, PartialEq)]
enum Material {
    /// RSA modulus and exponent, big-endian without leading zeros.
    Rsa { n: Vec<u8>, e: Vec<u8> },
    /// An uncompressed EC point (`04 || x || y`) on P-256 (`p384` false) or P-384.
    Ec { p384: bool, point: Vec<u8> },
    /// An Ed25519 public key.
    Ed25519(Vec<u8>),
}

/// One verification key of a JWKS.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Key {
    /// `kid`, if the key has one.
    pub kid: Option<String>,
    /// The key's own `alg`, if it names one (then it verifies only that).
    alg: Option<Alg>,
    material: Material,
}

fn b64(jwk: &serde_json::Map<String, Value>, member: &str) -> Result<Vec<u8>, String> {
    let s = jwk
        .get(member)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("JWK member {member} is missing or not a string"))?;
    URL_SAFE_NO_PAD
        .decode(s)
        .map_err(|e| format!("JWK member {member} is not base64url: {e}"))
}

fn strip_zeros(mut v: Vec<u8>) -> Vec<u8> {
    let first = v.iter().position(|b| *b != 0).unwrap_or(v.len());
    v.drain(..first);
    v
}

impl Key {
    /// Reads one JWK. `Ok(None)`: a key this verifier does not use (an encryption key, a
    /// symmetric or unsupported key type or curve, an algorithm it does not accept);
    /// `Err`: a signing key that is malformed.
    pub fn from_jwk(jwk: &Value) -> Result<Option<Key>, String> {
        let Value::Object(m) = jwk else {
            return Err("a JWK is not an object".into());
        };
        if m.get("use").is_some_and(|u| u != "sig") {
            return Ok(None);
        }
        if let Some(Value::Array(ops)) = m.get("key_ops") {
            if !ops.iter().any(|o| o == "verify") {
                return Ok(None);
            }
        }
        let alg = match m.get("alg") {
            None | Some(Value::Null) => None,
            Some(Value::String(a)) => match Alg::parse(a) {
                Some(a) => Some(a),
                None => return Ok(None),
            },
            Some(other) => return Err(format!("JWK alg is not a string: {other}")),
        };
        let kid = match m.get("kid") {
            None | Some(Value::Null) => None,
            Some(Value::String(k)) => Some(k.clone()),
            Some(other) => return Err(format!("JWK kid is not a string: {other}")),
        };
        let crv = m.get("crv").and_then(Value::as_str);
        let material = match m.get("kty").and_then(Value::as_str) {
            Some("RSA") => {
                let n = strip_zeros(b64(m, "n")?);
                let e = strip_zeros(b64(m, "e")?);
                if n.len() < 256 {
                    return Err(format!(
                        "JWK RSA modulus of {} bits is under 2048",
                        n.len() * 8
                    ));
                }
                if e.is_empty() {
                    return Err("JWK RSA exponent is zero".into());
                }
                Material::Rsa { n, e }
            }
            Some("EC") => {
                let (p384, len) = match crv {
                    Some("P-256") => (false, 32),
                    Some("P-384") => (true, 48),
                    _ => return Ok(None),
                };
                let (x, y) = (b64(m, "x")?, b64(m, "y")?);
                if x.len() != len || y.len() != len {
                    return Err(format!("JWK EC coordinates must be {len} bytes each"));
                }
                let mut point = Vec::with_capacity(1 + 2 * len);
                point.push(4);
                point.extend_from_slice(&x);
                point.extend_from_slice(&y);
                Material::Ec { p384, point }
            }
            Some("OKP") if crv == Some("Ed25519") => {
                let x = b64(m, "x")?;
                if x.len() != signature::ED25519_PUBLIC_KEY_LEN {
                    return Err("JWK Ed25519 key must be 32 bytes".into());
                }
                Material::Ed25519(x)
            }
            Some(_) => return Ok(None),
            None => return Err("a JWK has no kty".into()),
        };
        let key = Key { kid, alg, material };
        if let Some(a) = alg {
            if !key.fits(a) {
                return Err(format!(
                    "JWK alg {} does not fit its key type or curve",
                    a.name()
                ));
            }
        }
        Ok(Some(key))
    }

    /// Whether the key's type and curve fit `alg`.
    fn fits(&self, alg: Alg) -> bool {
        use Alg::*;
        match &self.material {
            Material::Rsa { .. } => matches!(alg, Rs256 | Rs384 | Rs512 | Ps256 | Ps384 | Ps512),
            Material::Ec { p384: false, .. } => alg == Es256,
            Material::Ec { p384: true, .. } => alg == Es384,
            Material::Ed25519(_) => alg == EdDsa,
        }
    }

    /// Whether this key may verify a token signed with `alg`.
    pub fn allows(&self, alg: Alg) -> bool {
        self.alg.is_none_or(|own| own == alg) && self.fits(alg)
    }

    /// Checks `sig` over `msg` with `alg` (which [`Self::allows`]).
    pub fn verify(&self, alg: Alg, msg: &[u8], sig: &[u8]) -> bool {
        if !self.allows(alg) {
            return false;
        }
        match &self.material {
            Material::Rsa { n, e } => {
                let params: &signature::RsaParameters = match alg {
                    Alg::Rs256 => &signature::RSA_PKCS1_2048_8192_SHA256,
                    Alg::Rs384 => &signature::RSA_PKCS1_2048_8192_SHA384,
                    Alg::Rs512 => &signature::RSA_PKCS1_2048_8192_SHA512,
                    Alg::Ps256 => &signature::RSA_PSS_2048_8192_SHA256,
                    Alg::Ps384 => &signature::RSA_PSS_2048_8192_SHA384,
                    Alg::Ps512 => &signature::RSA_PSS_2048_8192_SHA512,
                    _ => return false,
                };
                RsaPublicKeyComponents { n, e }
                    .verify(params, msg, sig)
                    .is_ok()
            }
            Material::Ec { p384, point } => {
                let algorithm = if *p384 {
                    &signature::ECDSA_P384_SHA384_FIXED
                } else {
                    &signature::ECDSA_P256_SHA256_FIXED
                };
                UnparsedPublicKey::new(algorithm, point)
                    .verify(msg, sig)
                    .is_ok()
            }
            Material::Ed25519(x) => UnparsedPublicKey::new(&signature::ED25519, x)
                .verify(msg, sig)
                .is_ok(),
        }
    }
}

/// The signing keys of a JWKS document (`{"keys": [...]}`). Keys this verifier does not use are
/// skipped; a malformed signing key, or a set with no usable key, is an error.
pub(crate) fn parse_jwks(doc: &Value) -> Result<Vec<Key>, String> {
    let keys = doc
        .get("keys")
        .and_then(Value::as_array)
        .ok_or("the JWKS has no keys array")?;
    let mut out = Vec::new();
    for k in keys.iter().take(MAX_KEYS) {
        if let Some(key) = Key::from_jwk(k)? {
            out.push(key);
        }
    }
    if out.is_empty() {
        return Err("the JWKS holds no usable signing key".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ed_key(alg: Option<&str>) -> Value {
        let mut k = json!({"kty": "OKP", "crv": "Ed25519", "kid": "e1",
                           "x": URL_SAFE_NO_PAD.encode([7u8; 32])});
        if let Some(a) = alg {
            k["alg"] = json!(a);
        }
        k
    }

    #[test]
    fn keys_verify_only_the_algorithms_they_fit() {
        let k = Key::from_jwk(&ed_key(None)).unwrap().unwrap();
        assert!(k.allows(Alg::EdDsa));
        assert!(!k.allows(Alg::Es256) && !k.allows(Alg::Rs256));
        let rsa = json!({"kty": "RSA", "n": URL_SAFE_NO_PAD.encode([0xc1u8; 256]), "e": "AQAB", "alg": "PS256"});
        let r = Key::from_jwk(&rsa).unwrap().unwrap();
        assert!(r.allows(Alg::Ps256) && !r.allows(Alg::Rs256));
        // A key naming an algorithm its type cannot do is malformed.
        assert!(Key::from_jwk(&ed_key(Some("RS256"))).is_err());
        // Symmetric keys, encryption keys and unknown algorithms are skipped, never used.
        for skip in [
            json!({"kty": "oct", "k": "c2VjcmV0"}),
            json!({"kty": "OKP", "crv": "X25519", "x": "AA"}),
            json!({"kty": "EC", "crv": "P-521", "x": "AA", "y": "AA"}),
            {
                let mut k = ed_key(None);
                k["use"] = json!("enc");
                k
            },
            ed_key(Some("HS256")),
            ed_key(Some("none")),
        ] {
            assert_eq!(Key::from_jwk(&skip).unwrap(), None, "{skip}");
        }
        for bad in [
            json!({"kty": "RSA", "n": URL_SAFE_NO_PAD.encode([1u8; 128]), "e": "AQAB"}),
            json!({"kty": "EC", "crv": "P-256", "x": "AA", "y": "AA"}),
            json!({"kty": "OKP", "crv": "Ed25519", "x": "!!"}),
            json!({"n": "AA"}),
            json!("key"),
        ] {
            assert!(Key::from_jwk(&bad).is_err(), "{bad}");
        }
        assert!(parse_jwks(&json!({"keys": [{"kty": "oct", "k": "AA"}]})).is_err());
        assert!(parse_jwks(&json!({})).is_err());
        assert_eq!(
            parse_jwks(&json!({"keys": [ed_key(None)]})).unwrap().len(),
            1
        );
        assert_eq!(Alg::parse("HS256"), None);
        assert_eq!(Alg::parse("none"), None);
    }
}
