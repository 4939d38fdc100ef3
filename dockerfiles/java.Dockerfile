# Base layer for Java repositories built with Maven: the OS, Debian's headless JDK and Maven,
# git and patch (for the apply chain), the host's CA certificates, and Debian's offline Maven
# repository (/usr/share/maven-repo: junit 4 and 5, surefire and its junit4 / junit47 /
# junit-platform providers, the compiler, resources and jar plugins).
# /etc/maven/settings-offline.xml makes that folder the local repository, so
# `mvn -s /etc/maven/settings-offline.xml -o` builds projects whose plugin and dependency versions
# Debian ships, with no network. Real repositories reach Maven Central as usual: their specs run
# `mvn` without that file and download into ~/.m2.
# The JDK is the suite's (bookworm: 17) or, for a spec that names a version, another suite's or the
# official image's; a named Maven version comes from the suite or from Maven Central.
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
      ca-certificates ca-certificates-java git patch {{toolchain_apt}} maven \
      junit4 junit5 libsurefire-java libmaven-compiler-plugin-java \
      libmaven-resources-plugin-java libmaven-jar-plugin-java {{apt}} \
 && update-ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && printf '%s\n' '<?xml version="1.0" encoding="UTF-8"?>' \
      '<!-- verdict: offline builds from Debian'"'"'s Maven repository. Use with mvn -s THIS -o. -->' \
      '<settings xmlns="http://maven.apache.org/SETTINGS/1.0.0">' \
      '  <localRepository>/usr/share/maven-repo</localRepository>' \
      '  <offline>true</offline>' \
      '</settings>' > /etc/maven/settings-offline.xml
{{toolchain_steps}}
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt \
    PIP_CERT=/etc/ssl/certs/ca-certificates.crt \
    REQUESTS_CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt \
    LANG=C.UTF-8 LC_ALL=C.UTF-8 TZ=UTC
{{toolchain_check}}
