# Base layer for Go repositories: the OS, Debian's Go toolchain (golang-go), git and patch (for
# the apply chain), and the host's CA certificates so that the Go module proxy is reached behind a
# TLS-intercepting proxy. The repository's modules come from its go.mod and go.sum through the
# spec's `install` commands (`go mod download`) into the image's module cache, so the evaluation
# containers need no network. The proxy is the only source (no `direct` fallback: GitHub is not
# reachable everywhere), and GOTOOLCHAIN=local keeps a newer Go from downloading a toolchain.
# Placeholders: {{os_image}}, {{apt}} (space-separated Debian packages).
FROM {{os_image}}
COPY certs/ /usr/local/share/ca-certificates/
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      ca-certificates git patch golang-go {{apt}} \
 && update-ca-certificates \
 && rm -rf /var/lib/apt/lists/*
ENV SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt \
    PIP_CERT=/etc/ssl/certs/ca-certificates.crt \
    REQUESTS_CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt \
    NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt \
    GOPATH=/root/go \
    GOPROXY=https://proxy.golang.org \
    GOTOOLCHAIN=local \
    LANG=C.UTF-8 LC_ALL=C.UTF-8 TZ=UTC
