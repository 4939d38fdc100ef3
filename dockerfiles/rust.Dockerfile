# Base layer for Rust repositories: the OS, Debian's Rust toolchain (rustc and cargo, with the
# gcc they link with), git and patch (for the apply chain), and the host's CA certificates so that
# cargo reaches crates.io behind a TLS-intercepting proxy. The repository's crates come from its
# Cargo.lock through the spec's `install` commands (`cargo fetch`, `cargo test --no-run`) into
# the image, so the evaluation containers need no network.
# Placeholders: {{os_image}}, {{apt}} (space-separated Debian packages).
FROM {{os_image}}
COPY certs/ /usr/local/share/ca-certificates/
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      ca-certificates git patch rustc cargo {{apt}} \
 && update-ca-certificates \
 && rm -rf /var/lib/apt/lists/*
ENV CARGO_HTTP_CAINFO=/etc/ssl/certs/ca-certificates.crt \
    SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt \
    PIP_CERT=/etc/ssl/certs/ca-certificates.crt \
    REQUESTS_CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt \
    NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt \
    CARGO_HOME=/root/.cargo \
    CARGO_TERM_COLOR=never \
    CARGO_NET_RETRY=3 \
    LANG=C.UTF-8 LC_ALL=C.UTF-8 TZ=UTC
