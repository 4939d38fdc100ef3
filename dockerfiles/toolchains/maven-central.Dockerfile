# Maven from Maven Central: the distribution org.apache.maven:apache-maven:X:bin:tar.gz, fetched
# by the fetcher's Maven (the default Java base: Debian's JDK and Maven) with the dependency
# plugin, unpacked into /opt/maven and put first on PATH. Debian's Maven and its offline
# repository (/usr/share/maven-repo) stay in the image.
# A read that stalls ends after 60 s (-Dmaven.wagon.rto; Maven's default waits 30 minutes) and the
# fetch is tried three times, keeping what it already downloaded.
# Placeholders: {{fetcher}}, {{maven}} (a full version, x.y.z).
FROM {{fetcher}} AS verdict-maven-central
RUN mkdir -p /fetch \
 && for try in 1 2 3; do \
      if mvn -B -q -Dmaven.wagon.rto=60000 dependency:copy -Dartifact=org.apache.maven:apache-maven:{{maven}}:tar.gz:bin -DoutputDirectory=/fetch; then break; fi; \
      [ "$try" = 3 ] && exit 1; echo "verdict: Maven Central fetch failed, try $try of 3" >&2; \
    done \
 && rm -rf /root/.m2 \
 && ls -l /fetch
# verdict: steps
COPY --from=verdict-maven-central /fetch/ /tmp/verdict-maven-central/
RUN mkdir -p /opt/maven \
 && tar -xzf /tmp/verdict-maven-central/apache-maven-{{maven}}-bin.tar.gz -C /opt/maven --strip-components=1 --no-same-owner \
 && rm -rf /tmp/verdict-maven-central
ENV MAVEN_HOME=/opt/maven PATH=/opt/maven/bin:$PATH
