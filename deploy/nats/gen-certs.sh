#!/usr/bin/env bash
# Generates a TEST certificate authority and one certificate per NATS node
# (n1, n2, n3; valid for server and client use, so routes can verify each
# other) into DIR (default ./certs):
#
#   ca.pem ca-key.pem n1.pem n1-key.pem n2.pem n2-key.pem n3.pem n3-key.pem
#
# Each node certificate names nX, nats, localhost and 127.0.0.1. Clients
# (agentgate --tlsca DIR/ca.pem) verify the nodes with ca.pem. For
# production use certificates from your own CA (cert-manager, Vault, ...).
set -euo pipefail
dir=${1:-certs}
days=${DAYS:-365}
command -v openssl >/dev/null || { echo "gen-certs.sh: openssl is required" >&2; exit 1; }
mkdir -p "$dir"
cd "$dir"
key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }

key ca-key.pem
openssl req -x509 -new -key ca-key.pem -sha256 -days "$days" -subj "/CN=agentgate test CA" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
  -out ca.pem
for n in n1 n2 n3; do
  key "$n-key.pem"
  openssl req -new -key "$n-key.pem" -subj "/CN=$n" -out "$n.csr"
  printf '%s\n' \
    "subjectAltName=DNS:$n,DNS:nats,DNS:localhost,IP:127.0.0.1" \
    "extendedKeyUsage=serverAuth,clientAuth" \
    "keyUsage=critical,digitalSignature" >"$n.ext"
  openssl x509 -req -in "$n.csr" -CA ca.pem -CAkey ca-key.pem -CAcreateserial -sha256 \
    -days "$days" -extfile "$n.ext" -out "$n.pem" 2>/dev/null
  rm -f "$n.csr" "$n.ext"
done
rm -f ca.srl
chmod 600 ./*-key.pem
echo "gen-certs.sh: test CA and node certificates in $(pwd)"
