# CPython from Maven Central: the JavaCPP presets publish a relocatable CPython build for Linux,
# org.bytedeco:cpython:X-Y:jar:linux-x86_64 (the interpreter, libpython, the standard library, and
# the pip and setuptools wheels of ensurepip). The fetcher's Maven (the default Java base: Debian's
# JDK and Maven) copies the jar and its `jar` tool unpacks it into /opt/python; the steps put
# `python3` first on PATH and point OpenSSL at the image's CA bundle (the build's own OpenSSL
# looks for certificates where it was built).
# These builds leave out the _sqlite3 module (coverage, and so pytest-cov, needs it): the stage
# takes it from PyPI's pysqlite3-binary wheel for that Python (a build of the same module with its
# own SQLite), fetched by the new Python's own pip, into lib-dynload, where `import sqlite3` finds
# it. Still missing: _bz2 and _lzma in 3.7.9 (`import bz2`, `import lzma` fail), _lzma in 3.10.8,
# and readline and curses in both.
# A read that stalls ends after 60 s (-Dmaven.wagon.rto; Maven's default waits 30 minutes) and the
# fetch is tried three times, keeping what it already downloaded.
# Placeholders: {{fetcher}}, {{python}} (3.7 and 3.10, or the full versions below).
FROM {{fetcher}} AS verdict-maven-central-cpython
RUN set -e; \
    case "{{python}}" in \
      3.7|3.7.9) artifact=3.7.9-1.5.4 ;; \
      3.10|3.10.8) artifact=3.10.8-1.5.8 ;; \
      *) echo "verdict: Maven Central's org.bytedeco:cpython has no build of Python {{python}} that verdict knows (3.7.9, 3.10.8)" >&2; exit 1 ;; \
    esac; \
    mkdir -p /fetch /opt/python; cd /fetch; \
    for try in 1 2 3; do \
      if mvn -B -q -Dmaven.wagon.rto=60000 dependency:copy -Dartifact=org.bytedeco:cpython:$artifact:jar:linux-x86_64 -DoutputDirectory=/fetch; then break; fi; \
      [ "$try" = 3 ] && exit 1; echo "verdict: Maven Central fetch failed, try $try of 3" >&2; \
    done; \
    rm -rf /root/.m2; \
    jar xf cpython-$artifact-linux-x86_64.jar org/bytedeco/cpython/linux-x86_64; \
    cp -a org/bytedeco/cpython/linux-x86_64/. /opt/python/; \
    chmod 755 /opt/python/bin/*; \
    py="$(ls /opt/python/bin/python3.* | grep -v config | head -n 1)"; \
    SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt "$py" -m pip download -q --no-deps --only-binary=:all: -d /fetch/wheels pysqlite3-binary==0.5.4; \
    "$py" -m zipfile -e /fetch/wheels/pysqlite3_binary-*.whl /fetch/pysqlite3; \
    cp /fetch/pysqlite3/pysqlite3/_sqlite3.*.so "$(dirname "$py")/../lib/$(basename "$py")/lib-dynload/"; \
    cd /; rm -rf /fetch; \
    "$py" -c 'import sqlite3, ssl, zlib, ctypes; sqlite3.connect(":memory:").execute("select 1")'; \
    ls /opt/python/bin
# verdict: steps
COPY --from=verdict-maven-central-cpython /opt/python /opt/python
RUN set -e; v="$(ls /opt/python/lib | sed -n 's/^python\(3\.[0-9]*\)$/\1/p' | head -n 1)"; \
    ln -sf "/opt/python/bin/python$v" /usr/local/bin/python3; \
    ln -sf "/opt/python/bin/python$v" "/usr/local/bin/python$v"; \
    python3 -c 'import ssl, ctypes, zlib, sqlite3, venv, ensurepip; print("python", ssl.OPENSSL_VERSION)'
ENV SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt SSL_CERT_DIR=/etc/ssl/certs
