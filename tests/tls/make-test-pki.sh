#!/usr/bin/env bash
# Makes the throwaway PKI the bindings' TLS tests use (Python, Node, Swift), in directory $1, with
# the `openssl` command (the same certificates core/tests/integration/http_tls.rs makes):
#   ca.pem/.key          a self-signed CA ("ferromcp test CA"), valid 2 days
#   server.pem/.key      its server certificate for localhost and 127.0.0.1 (serverAuth)
#   alice.pem/.key       its client certificate, CN=alice, SAN DNS:alice (clientAuth)
#   expired.pem/.key     its client certificate valid only on 1 January 2020
#   other-ca.pem/.key    another CA; mallory.pem/.key its client certificate, CN=mallory
# EC P-256 keys throughout. Exit status non-zero, with openssl's message, if any step fails.
set -euo pipefail
dir="$1"
mkdir -p "$dir"
cd "$dir"
q() { openssl "$@" 2>/dev/null >/dev/null || { openssl "$@" >&2; exit 1; }; }
ec=(-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes)

ca() { # name cn
  q req -x509 "${ec[@]}" -keyout "$1.key" -out "$1.pem" -days 2 -subj "/CN=$2" \
    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign
}
leaf() { # ca name cn serial usage san
  q req "${ec[@]}" -keyout "$2.key" -out "$2.csr" -subj "/CN=$3"
  printf 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=%s\nsubjectAltName=%s\n' \
    "$5" "$6" >"$2.ext"
  q x509 -req -in "$2.csr" -CA "$1.pem" -CAkey "$1.key" -set_serial "$4" -out "$2.pem" -days 2 \
    -extfile "$2.ext"
}

ca ca "ferromcp test CA"
ca other-ca "another test CA"
leaf ca server "ferromcp test server" 1 serverAuth "DNS:localhost,IP:127.0.0.1"
leaf ca alice alice 2 clientAuth "DNS:alice"
leaf other-ca mallory mallory 3 clientAuth "DNS:mallory"

# `openssl ca` is what can set past dates.
q req "${ec[@]}" -keyout expired.key -out expired.csr -subj "/CN=expired"
: >index.txt
echo 0A >serial
printf '[ca]\ndefault_ca=d\n[d]\ndatabase=index.txt\nnew_certs_dir=.\nserial=serial\ndefault_md=sha256\npolicy=p\n[p]\ncommonName=supplied\n' >ca.cnf
printf 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n' >expired.ext
q ca -config ca.cnf -batch -notext -cert ca.pem -keyfile ca.key -in expired.csr -out expired.pem \
  -startdate 20200101000000Z -enddate 20200102000000Z -extfile expired.ext
