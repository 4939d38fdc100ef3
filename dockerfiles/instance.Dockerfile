# Instance layer, common to every language: the repository at its base commit in /testbed,
# committed to a fresh git repository (so the eval script can reset files to it), then
# installed by the spec's `install` commands, and what install wrote committed on top (so
# the eval script's resets restore the state after install, not the bare checkout).
# - Every file of the base commit is added, `.gitignore` or not (`add --force`), with git's
#   conversions off (info/attributes), and the tree is checked against the base commit's own
#   listing (tree.txt, from `git ls-tree -r` on the host, submodules left out): a mismatch
#   fails the build, naming the files.
# - node_modules/ is excluded from the install commit (info/exclude), as git clean must never
#   reach into it.
# - The files carry the commit's time, never before 1980-01-02 (src/images/context.rs). Docker's
#   COPY cache ignores file dates, so the label below keeps layers made from snapshots dated
#   otherwise from being reused.
# Placeholders: {{env_image}}.
FROM {{env_image}}
LABEL verdict.snapshot.dates="commit, from 1980-01-02"
COPY repo/ /testbed/
COPY tree.txt /verdict/tree.txt
WORKDIR /testbed
RUN git init -q \
 && printf '* -export-ignore -export-subst -text -eol -filter -ident\n' > .git/info/attributes \
 && git -c user.name=verdict -c user.email=verdict@localhost add -A --force \
 && git -c user.name=verdict -c user.email=verdict@localhost commit -q --no-verify --allow-empty -m base \
 && git config --global --add safe.directory /testbed \
 && printf 'node_modules/\n' >> .git/info/exclude \
 && git ls-tree -r -z --full-tree HEAD > /tmp/verdict-tree.txt \
 && if ! cmp -s /tmp/verdict-tree.txt /verdict/tree.txt; then \
      echo "verdict: /testbed is not the base commit's tree (expected, then found):"; \
      tr '\0' '\n' < /verdict/tree.txt > /tmp/expected; tr '\0' '\n' < /tmp/verdict-tree.txt > /tmp/found; \
      diff /tmp/expected /tmp/found | head -n 40; \
      exit 1; \
    fi \
 && rm -f /tmp/verdict-tree.txt
COPY install.sh /verdict/install.sh
RUN bash /verdict/install.sh \
 && git -c user.name=verdict -c user.email=verdict@localhost add -A \
 && { git diff --cached --quiet \
      || git -c user.name=verdict -c user.email=verdict@localhost commit -q --no-verify -m install; }
