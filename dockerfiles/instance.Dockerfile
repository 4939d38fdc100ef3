# Instance layer, common to every language: the repository at its base commit in /testbed,
# committed to a fresh git repository (so the eval script can reset files to it), then
# installed by the spec's `install` commands.
# Placeholders: {{env_image}}.
FROM {{env_image}}
COPY repo/ /testbed/
WORKDIR /testbed
RUN git init -q \
 && git -c user.name=verdict -c user.email=verdict@localhost add -A \
 && git -c user.name=verdict -c user.email=verdict@localhost commit -q --no-verify -m base \
 && git config --global --add safe.directory /testbed
COPY install.sh /verdict/install.sh
RUN bash /verdict/install.sh
