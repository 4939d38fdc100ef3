# Maven from Maven Central: the distribution org.apache.maven:apache-maven:X:bin:tar.gz, fetched
# by the fetcher's Maven (the default Java base: Debian's JDK and Maven) with the dependency
# plugin, unpacked into /opt/maven and put first on PATH. Debian's Maven and its offline
# repository (/usr/share/maven-repo) stay in the image.
# Placeholders: {{fetcher}}, {{maven}} (a full version, x.y.z).
FROM {{fetcher}} AS verdict-maven-central
RUN mkdir -p /fetch \
 && mvn -B -q dependency:copy -Dartifact=org.apache.maven:apache-maven:{{maven}}:tar.gz:bin -DoutputDirectory=/fetch \
 && rm -rf /root/.m2 \
 && ls -l /fetch
# verdict: steps
COPY --from=verdict-maven-central /fetch/ /tmp/verdict-maven-central/
RUN mkdir -p /opt/maven \
 && tar -xzf /tmp/verdict-maven-central/apache-maven-{{maven}}-bin.tar.gz -C /opt/maven --strip-components=1 --no-same-owner \
 && rm -rf /tmp/verdict-maven-central
ENV MAVEN_HOME=/opt/maven PATH=/opt/maven/bin:$PATH
