# Base layer for JavaScript and TypeScript repositories: the OS, Debian's Node.js and npm, git
# and patch (for the apply chain), and the host's CA certificates so that npm works behind a
# TLS-intercepting proxy. The repository's own packages (jest, mocha, ts-jest, ...) come from its
# package.json through the spec's `install` commands.
# Placeholders: {{os_image}}, {{apt}} (space-separated Debian packages).
FROM {{os_image}}
COPY certs/ /usr/local/share/ca-certificates/
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      ca-certificates git patch nodejs npm {{apt}} \
 && update-ca-certificates \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt \
    NPM_CONFIG_CAFILE=/etc/ssl/certs/ca-certificates.crt \
    PIP_CERT=/etc/ssl/certs/ca-certificates.crt \
    REQUESTS_CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false \
    NPM_CONFIG_AUDIT=false \
    LANG=C.UTF-8 LC_ALL=C.UTF-8 TZ=UTC
