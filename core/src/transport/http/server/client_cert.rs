//! The identity in a verified client certificate (mutual TLS, see
//! [`super::tls::ClientCertificates`]): its subject, subject alternative names and serial, read
//! from the leaf's DER with a small bounds-checked reader (rustls has verified the chain before;
//! anything this reader does not understand is left out, never a panic), and the [`AuthInfo`]
//! handlers see for it.

use crate::session::AuthInfo;
use serde_json::{json, Value};
use std::net::IpAddr;

/// What a client certificate says about its holder.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct ClientIdentity {
    /// The subject name, RFC 4514 style, most significant last as written in the certificate
    /// order reversed (`CN=alice,O=Example`).
    pub subject: String,
    /// The subject's last common name (`CN`).
    pub common_name: Option<String>,
    pub dns_names: Vec<String>,
    pub emails: Vec<String>,
    pub uris: Vec<String>,
    pub ip_addresses: Vec<String>,
    /// The serial number, hex.
    pub serial: String,
}

impl ClientIdentity {
    /// Reads a certificate's DER; `None` when it is not shaped like an X.509 certificate.
    pub(crate) fn from_der(der: &[u8]) -> Option<Self> {
        let (cert, _) = Der::new(der).take(0x30)?;
        let (tbs, _) = Der::new(cert).take(0x30)?;
        let mut r = Der::new(tbs);
        if r.peek() == Some(0xa0) {
            r.take(0xa0)?; // version
        }
        let serial = r.take(0x02)?.0;
        r.take(0x30)?; // signature algorithm
        r.take(0x30)?; // issuer
        r.take(0x30)?; // validity
        let subject = r.take(0x30)?.0;
        r.take(0x30)?; // subject public key info
        let mut id = ClientIdentity {
            serial: serial.iter().map(|b| format!("{b:02x}")).collect(),
            ..Default::default()
        };
        id.read_name(subject);
        while let Some((tag, body)) = r.any() {
            if tag == 0xa3 {
                id.read_extensions(body);
            }
        }
        Some(id)
    }

    fn read_name(&mut self, name: &[u8]) {
        let mut parts = Vec::new();
        let mut rdns = Der::new(name);
        while let Some((set, _)) = rdns.take(0x31) {
            let mut atvs = Der::new(set);
            while let Some((atv, _)) = atvs.take(0x30) {
                let mut a = Der::new(atv);
                let (Some((oid, _)), Some((_, value))) = (a.take(0x06), a.any()) else {
                    continue;
                };
                let value = String::from_utf8_lossy(value).into_owned();
                let label = match oid {
                    [0x55, 0x04, 0x03] => "CN".to_string(),
                    [0x55, 0x04, 0x06] => "C".into(),
                    [0x55, 0x04, 0x07] => "L".into(),
                    [0x55, 0x04, 0x08] => "ST".into(),
                    [0x55, 0x04, 0x0a] => "O".into(),
                    [0x55, 0x04, 0x0b] => "OU".into(),
                    [0x09, 0x92, 0x26, 0x89, 0x93, 0xf2, 0x2c, 0x64, 0x01, 0x19] => "DC".into(),
                    [0x09, 0x92, 0x26, 0x89, 0x93, 0xf2, 0x2c, 0x64, 0x01, 0x01] => "UID".into(),
                    other => format!(
                        "OID.{}",
                        other.iter().map(|b| format!("{b:02x}")).collect::<String>()
                    ),
                };
                if label == "CN" {
                    self.common_name = Some(value.clone());
                }
                parts.push(format!("{label}={}", escape(&value)));
            }
        }
        parts.reverse();
        self.subject = parts.join(",");
    }

    fn read_extensions(&mut self, explicit: &[u8]) {
        let Some((list, _)) = Der::new(explicit).take(0x30) else {
            return;
        };
        let mut exts = Der::new(list);
        while let Some((ext, _)) = exts.take(0x30) {
            let mut e = Der::new(ext);
            let Some((oid, _)) = e.take(0x06) else {
                continue;
            };
            if oid != [0x55, 0x1d, 0x11] {
                continue; // not subjectAltName
            }
            if e.peek() == Some(0x01) {
                e.take(0x01); // critical
            }
            let Some((octets, _)) = e.take(0x04) else {
                continue;
            };
            let Some((names, _)) = Der::new(octets).take(0x30) else {
                continue;
            };
            let mut n = Der::new(names);
            while let Some((tag, v)) = n.any() {
                let text = || String::from_utf8_lossy(v).into_owned();
                match tag {
                    0x81 => self.emails.push(text()),
                    0x82 => self.dns_names.push(text()),
                    0x86 => self.uris.push(text()),
                    0x87 => {
                        let ip = match v.len() {
                            4 => <[u8; 4]>::try_from(v).ok().map(IpAddr::from),
                            16 => <[u8; 16]>::try_from(v).ok().map(IpAddr::from),
                            _ => None,
                        };
                        if let Some(ip) = ip {
                            self.ip_addresses.push(ip.to_string());
                        }
                    }
                    _ => {}
                }
            }
        }
    }

    /// The principal: the subject's common name, else the first DNS name, e-mail or URI of
    /// the alternative names, else the whole subject.
    pub(crate) fn principal(&self) -> String {
        self.common_name
            .clone()
            .or_else(|| self.dns_names.first().cloned())
            .or_else(|| self.emails.first().cloned())
            .or_else(|| self.uris.first().cloned())
            .unwrap_or_else(|| self.subject.clone())
    }

    /// The certificate as a JSON object (`claims.clientCertificate` of [`AuthInfo`]).
    pub(crate) fn to_json(&self) -> Value {
        json!({
            "subject": self.subject,
            "commonName": self.common_name,
            "dnsNames": self.dns_names,
            "emails": self.emails,
            "uris": self.uris,
            "ipAddresses": self.ip_addresses,
            "serialNumber": self.serial,
        })
    }

    /// The identity handlers see when the certificate is the only one: the principal as
    /// `subject`, the certificate under `claims.clientCertificate`.
    pub(crate) fn auth_info(&self) -> AuthInfo {
        AuthInfo::default()
            .with_subject(self.principal())
            .with_claims(json!({ "clientCertificate": self.to_json() }))
    }
}

/// Adds the certificate to an OAuth identity: `claims.clientCertificate` (the token's own
/// subject stays the principal).
pub(crate) fn add_to(info: &mut AuthInfo, cert: &Value) {
    match &mut info.claims {
        Value::Object(m) => {
            m.insert("clientCertificate".into(), cert.clone());
        }
        other => *other = json!({ "clientCertificate": cert }),
    }
}

fn escape(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    for (i, c) in v.chars().enumerate() {
        if matches!(c, ',' | '+' | '"' | '\\' | '<' | '>' | ';')
            || (i == 0 && matches!(c, '#' | ' '))
        {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A reader of DER's tag-length-value items (single-byte tags, definite lengths).
struct Der<'a> {
    rest: &'a [u8],
}

impl<'a> Der<'a> {
    fn new(rest: &'a [u8]) -> Self {
        Self { rest }
    }

    fn peek(&self) -> Option<u8> {
        self.rest.first().copied()
    }

    /// The next item: its tag and contents; `None` at the end or on bad framing.
    fn any(&mut self) -> Option<(u8, &'a [u8])> {
        let (&tag, rest) = self.rest.split_first()?;
        let (&first, mut rest) = rest.split_first()?;
        let len = if first < 0x80 {
            first as usize
        } else {
            let n = (first & 0x7f) as usize;
            if n == 0 || n > 4 || rest.len() < n {
                return None;
            }
            let len = rest[..n].iter().fold(0usize, |a, &b| (a << 8) | b as usize);
            rest = &rest[n..];
            len
        };
        if rest.len() < len {
            self.rest = &[];
            return None;
        }
        let (body, rest) = rest.split_at(len);
        self.rest = rest;
        Some((tag, body))
    }

    /// The next item if it has tag `tag`, with what follows it.
    fn take(&mut self, tag: u8) -> Option<(&'a [u8], &'a [u8])> {
        if self.peek()? != tag {
            return None;
        }
        let (_, body) = self.any()?;
        Some((body, self.rest))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncated_or_garbage_der_gives_none_without_panicking() {
        assert_eq!(ClientIdentity::from_der(&[]), None);
        assert_eq!(ClientIdentity::from_der(&[0x30, 0x82, 0xff]), None);
        assert_eq!(ClientIdentity::from_der(&[0x30, 0x03, 0x30, 0x01]), None);
        for n in 0..64u8 {
            let junk: Vec<u8> = (0..n).map(|i| i.wrapping_mul(37) ^ 0x30).collect();
            let _ = ClientIdentity::from_der(&junk);
        }
    }

    #[test]
    fn special_characters_of_a_name_are_escaped() {
        assert_eq!(escape("a,b+c"), "a\\,b\\+c");
        assert_eq!(escape("#x"), "\\#x");
    }
}
