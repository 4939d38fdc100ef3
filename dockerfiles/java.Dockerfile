# Base layer for Java repositories built with Maven: the OS, Debian's headless JDK and Maven,
# git and patch (for the apply chain), the host's CA certificates, and Debian's offline Maven
# repository (/usr/share/maven-repo: junit 4 and 5, surefire and its junit4 / junit47 /
# junit-platform providers, the compiler, resources and jar plugins).
# /etc/maven/settings-offline.xml makes that folder the local repository, so
# `mvn -s /etc/maven/settings-offline.xml -o` builds projects whose plugin and dependency versions
# Debian ships, with no network. Real repositories reach Maven Central as usual: their specs run
# `mvn` without that file and download into ~/.m2.
# Placeholders: {{os_image}}, {{apt}} (space-separated Debian packages).
FROM {{os_image}}
COPY certs/ /usr/local/share/ca-certificates/
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      ca-certificates ca-certificates-java git patch default-jdk-headless maven \
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
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt \
    PIP_CERT=/etc/ssl/certs/ca-certificates.crt \
    REQUESTS_CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt \
    LANG=C.UTF-8 LC_ALL=C.UTF-8 TZ=UTC
