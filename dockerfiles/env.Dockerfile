# Env layer, common to every language: the repository's dependencies, installed by the spec's
# `env_setup` commands before the repository itself is present.
# Placeholders: {{base_image}}.
FROM {{base_image}}
COPY env_setup.sh /verdict/env_setup.sh
RUN bash /verdict/env_setup.sh
