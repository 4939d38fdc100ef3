# Base layer for Python repositories: the OS, Python with a virtualenv on PATH, git and patch
# (for the apply chain), and the host's CA certificates so that pip works behind a
# TLS-intercepting proxy. Python is the suite's python3 (bookworm: 3.11) or, for a spec that names
# a version, another suite's or the official image's.
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
ENV PIP_CERT=/etc/ssl/certs/ca-certificates.crt \
    REQUESTS_CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt \
    NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_INPUT=1 \
    LANG=C.UTF-8 LC_ALL=C.UTF-8 TZ=UTC PYTHONHASHSEED=0 \
    VIRTUAL_ENV=/opt/venv PATH=/opt/venv/bin:$PATH
RUN python3 -m venv /opt/venv
{{toolchain_check}}
