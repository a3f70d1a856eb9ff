#!/bin/sh
# make-certs.sh: throwaway TLS material for HTTPWire's transport tests (openssl CLI, OpenSSL 3.0+).
#
# Usage: make-certs.sh OUTPUT_DIRECTORY
# Writes, all with 2048-bit RSA keys (fast to make, accepted by OpenSSL's default security level):
#   ca.pem / ca.key             a test CA, valid 10 days from now
#   other-ca.pem                a second, unrelated CA ("unknown CA" tests)
#   leaf.pem / leaf.key         issued by ca, SANs DNS:localhost, IP:127.0.0.1, IP:::1
#   wrong-host.pem / .key       issued by ca, SAN DNS:wrong.example only
#   expired.pem / .key          issued by ca, validity 2020-01-01 .. 2020-01-02 (openssl ca -startdate/-enddate)
#   self-signed.pem / .key      its own issuer, SANs localhost and 127.0.0.1
#   unknown-ca-leaf.pem / .key  issued by other-ca, SANs localhost and 127.0.0.1
#   client.pem / client.key     issued by ca, for mutual TLS (extendedKeyUsage clientAuth)
# Tests run it into a fresh temporary directory, so nothing here has to be checked in or kept fresh.
set -eu
out=${1:?usage: make-certs.sh OUTPUT_DIRECTORY}
mkdir -p "$out"
cd "$out"

key() { openssl genrsa -out "$1" 2048 2>/dev/null; }

# A CA: self-signed, basicConstraints CA:TRUE, keyCertSign.
make_ca() {
    key "$1.key"
    openssl req -x509 -new -key "$1.key" -sha256 -days 10 -subj "/CN=$2" -out "$1.pem" \
        -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"
}
make_ca ca "HTTPWire Test CA"
make_ca other-ca "HTTPWire Unrelated CA"

# A minimal `openssl ca` setup: the only tool in OpenSSL 3.0 that can set a validity period in the past.
mkdir -p ca-db
: > ca-db/index.txt
echo 1000 > ca-db/serial
cat > ca-db/openssl.cnf <<CONF
[ ca ]
default_ca = test_ca
[ test_ca ]
dir = ca-db
database = ca-db/index.txt
serial = ca-db/serial
new_certs_dir = ca-db
default_md = sha256
policy = anything
copy_extensions = copy
unique_subject = no
[ anything ]
commonName = supplied
CONF

# issue NAME SIGNER SUBJECT SAN [EXTRA_ARGS...]: a leaf with the given SAN, signed by SIGNER.
issue() {
    name=$1 signer=$2 subject=$3 san=$4
    shift 4
    key "$name.key"
    openssl req -new -key "$name.key" -subj "/CN=$subject" -addext "subjectAltName=$san" \
        -addext "basicConstraints=CA:FALSE" -addext "extendedKeyUsage=serverAuth,clientAuth" -out "$name.csr"
    openssl ca -batch -config ca-db/openssl.cnf -cert "$signer.pem" -keyfile "$signer.key" \
        -in "$name.csr" -out "$name.pem" -notext "$@" 2>/dev/null
    rm -f "$name.csr"
}
issue leaf ca localhost "DNS:localhost,IP:127.0.0.1,IP:::1" -days 10
issue wrong-host ca wrong.example "DNS:wrong.example" -days 10
issue expired ca localhost "DNS:localhost,IP:127.0.0.1" -startdate 20200101000000Z -enddate 20200102000000Z
issue unknown-ca-leaf other-ca localhost "DNS:localhost,IP:127.0.0.1" -days 10
issue client ca "HTTPWire Test Client" "DNS:client.example" -days 10

key self-signed.key
openssl req -x509 -new -key self-signed.key -sha256 -days 10 -subj "/CN=localhost" -out self-signed.pem \
    -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" -addext "basicConstraints=CA:FALSE"

rm -rf ca-db
