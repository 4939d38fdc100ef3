# Base layer for JavaScript and TypeScript repositories: the OS, Debian's Node.js and npm, git
# and patch (for the apply chain), and the host's CA certificates so that npm works behind a
# TLS-intercepting proxy. The repository's own packages (jest, mocha, ts-jest, ...) come from its
# package.json through the spec's `install` commands.
# Node.js and npm are the suite's (bookworm: 18 and 9) or, for a spec that names a version, the
# official release from the npm registry, another suite's, or the official image's.
# Placeholders: {{stages}} (build stages of portable toolchain providers), {{os_image}} (the
# default suite's verdict-os image, another suite's, or an official image), {{toolchain_apt}}
# (the Debian packages of the toolchain the suite provides), {{apt}} (language and spec
# packages), {{toolchain_steps}} (lines that install toolchains from other providers),
# {{toolchain_check}} (checks every tool's version and records it in /verdict/toolchains.tsv).
{{stages}}
FROM {{os_image}}
COPY certs/ /usr/local/share/ca-certificates/
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      ca-certificates git patch {{toolchain_apt}} {{apt}} \
 && update-ca-certificates \
 && rm -rf /var/lib/apt/lists/*
{{toolchain_steps}}
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt \
    NPM_CONFIG_CAFILE=/etc/ssl/certs/ca-certificates.crt \
    PIP_CERT=/etc/ssl/certs/ca-certificates.crt \
    REQUESTS_CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false \
    NPM_CONFIG_AUDIT=false \
    LANG=C.UTF-8 LC_ALL=C.UTF-8 TZ=UTC
{{toolchain_check}}
