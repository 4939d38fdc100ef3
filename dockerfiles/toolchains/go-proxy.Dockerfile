# Go from the Go module proxy: the module golang.org/toolchain holds every Go release as
# v0.0.1-goX.linux-ARCH (the go command's own GOTOOLCHAIN downloads). The stage installs Debian's
# Go only to run `go mod download`, picks the newest release in the requested family, and copies
# it out; module zips keep no file modes, so the steps make the binaries executable again.
# Placeholders: {{os_image}}, {{go}}.
FROM {{os_image}} AS verdict-go-proxy
COPY certs/ /usr/local/share/ca-certificates/
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ca-certificates golang-go \
 && update-ca-certificates \
 && rm -rf /var/lib/apt/lists/*
RUN set -e; export GOPATH=/tmp/gopath GOFLAGS=-mod=mod GOTOOLCHAIN=local; \
    arch=$(go env GOARCH); want="{{go}}"; \
    v=$(go list -m -versions golang.org/toolchain | tr ' ' '\n' \
        | sed -n "s/^v0\.0\.1-go\([0-9.]*\)\.linux-$arch\$/\1/p" \
        | awk -v w="$want" '$0 == w || index($0, w ".") == 1' | sort -V | tail -1); \
    [ -n "$v" ] || { echo "verdict: the Go module proxy has no Go release $want for linux-$arch" >&2; exit 1; }; \
    dir=$(go mod download -json "golang.org/toolchain@v0.0.1-go$v.linux-$arch" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p'); \
    mkdir -p /fetch && cp -a "$dir" /fetch/go && chmod -R u+w /fetch/go && rm -rf /tmp/gopath
# verdict: steps
COPY --from=verdict-go-proxy /fetch/go /usr/local/go
RUN chmod -R a+x /usr/local/go/bin /usr/local/go/pkg/tool
ENV GOROOT=/usr/local/go PATH=/usr/local/go/bin:$PATH GOTOOLCHAIN=local
