# Rust from rustup: the rustup binary comes from PyPI (the package `rustup`), run by the fetcher
# (the default Python base, with pip) to install the requested toolchain with the minimal
# profile into /opt/rustup and /opt/cargo, which the steps copy into the base image.
# Placeholders: {{fetcher}}, {{rust}}.
FROM {{fetcher}} AS verdict-rustup
RUN set -e; pip install --no-cache-dir rustup; \
    export RUSTUP_HOME=/opt/rustup CARGO_HOME=/opt/cargo RUSTUP_INIT_SKIP_PATH_CHECK=yes; \
    ln -s "$(command -v rustup)" /tmp/rustup-init; \
    /tmp/rustup-init -y --no-modify-path --profile minimal --default-toolchain "{{rust}}"; \
    /opt/cargo/bin/rustc --version
# verdict: steps
COPY --from=verdict-rustup /opt/rustup /opt/rustup
COPY --from=verdict-rustup /opt/cargo /opt/cargo
ENV RUSTUP_HOME=/opt/rustup CARGO_HOME=/opt/cargo PATH=/opt/cargo/bin:$PATH
