# A JDK from Debian unstable (sid): OpenJDK 8, which no Debian release ships any more, is still
# built there (openjdk-8-jdk-headless). It installs on trixie (it needs libc6 2.38 or later, which
# bookworm does not have): sid is added at priority 100, so the JDK packages come from sid and
# every dependency from trixie itself, and sid is removed again afterwards.
# Debian's mirror as the development machine sees it is a snapshot whose sid Release file is past
# its Valid-Until date; apt is told not to check that date (Acquire::Check-Valid-Until=false),
# for this update only.
# Placeholders: {{java}}.
# verdict: steps
RUN set -e; major="$(echo '{{java}}' | cut -d. -f1)"; \
    uri="$(sed -n 's/^deb \(http[^ ]*\) .*/\1/p' /etc/apt/sources.list 2>/dev/null | head -n 1)"; \
    echo "deb ${uri:-http://deb.debian.org/debian} sid main" > /etc/apt/sources.list.d/verdict-sid.list; \
    printf 'Package: *\nPin: release a=unstable\nPin-Priority: 100\n' > /etc/apt/preferences.d/verdict-sid; \
    apt-get -o Acquire::Check-Valid-Until=false update; \
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "openjdk-$major-jdk-headless/unstable" "openjdk-$major-jre-headless/unstable"; \
    rm -f /etc/apt/sources.list.d/verdict-sid.list /etc/apt/preferences.d/verdict-sid; \
    rm -rf /var/lib/apt/lists/*; \
    ln -sfn "$(ls -d /usr/lib/jvm/java-$major-openjdk-*)" /usr/lib/jvm/verdict-java
ENV JAVA_HOME=/usr/lib/jvm/verdict-java PATH=/usr/lib/jvm/verdict-java/bin:$PATH
