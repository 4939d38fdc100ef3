//! Every built-in harness spec loads (no unknown field anywhere), and every one of its entries
//! resolves: a language with its defaults, a toolchain (with a container registry, as a user with
//! a normal network has; offline, the entries whose versions the Debian suites and the package
//! registries supply), a log parser, split rules for `verdict collect`, and version patterns that
//! compile. No Docker.

use std::collections::BTreeSet;

use verdict::dataset::collect::split::{Rules, SplitConfig};
use verdict::dataset::spec::SpecRegistry;
use verdict::images::toolchain::{select, Availability};

use crate::util::*;

/// OmniGIRL's 15 repositories, each with a built-in spec.
const OMNIGIRL: [&str; 15] = [
    "python/mypy",
    "statsmodels/statsmodels",
    "dateutil/dateutil",
    "tqdm/tqdm",
    "redis/redis-py",
    "pyca/cryptography",
    "prettier/prettier",
    "tailwindlabs/tailwindcss",
    "iamkun/dayjs",
    "babel/babel",
    "webpack/webpack",
    "jestjs/jest",
    "netty/netty",
    "assertj/assertj",
    "google/gson",
];

/// SWE-bench's Python repositories with a built-in spec (the swebench package's
/// MAP_REPO_VERSION_TO_SPECS, less its swe-bench/humaneval).
const SWEBENCH: [&str; 19] = [
    "astropy/astropy",
    "dbt-labs/dbt-core",
    "django/django",
    "marshmallow-code/marshmallow",
    "matplotlib/matplotlib",
    "mwaskom/seaborn",
    "pallets/flask",
    "psf/requests",
    "pvlib/pvlib-python",
    "pydata/xarray",
    "pydicom/pydicom",
    "pylint-dev/astroid",
    "pylint-dev/pylint",
    "pytest-dev/pytest",
    "pyvista/pyvista",
    "scikit-learn/scikit-learn",
    "sphinx-doc/sphinx",
    "sqlfluff/sqlfluff",
    "sympy/sympy",
];

#[test]
fn every_built_in_spec_entry_resolves() {
    let harness = repo_root().join("harness");
    let registry = SpecRegistry::load(&harness, &[]).unwrap_or_else(|e| panic!("{e}"));
    let split = SplitConfig::load(&harness.join("collect.toml")).unwrap();
    let mut repos = BTreeSet::new();
    let mut entries = 0;
    let mut offline = 0;
    for spec in registry.specs() {
        let path = &spec.path;
        repos.insert(spec.repo.clone());
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(file, format!("{}.toml", spec.repo.replace('/', "__")), "a spec file is named after its repository");
        for pattern in &spec.collect.version_patterns {
            regex::Regex::new(pattern).unwrap_or_else(|e| panic!("{file}: version pattern {pattern:?}: {e}"));
        }
        for (version, (_, entry)) in &spec.versions {
            entries += 1;
            let at = format!("{file} [versions.{version:?}]");
            assert!(
                registry.language(&entry.language).is_some(),
                "{at}: language {:?} has no defaults",
                entry.language
            );
            assert!(
                harness
                    .join("../dockerfiles")
                    .join(&registry.language(&entry.language).unwrap().base_dockerfile)
                    .exists(),
                "{at}: the language's base Dockerfile exists"
            );
            let tools = &registry.language(&entry.language).unwrap().toolchains;
            let online = select(registry.catalog(), &entry.toolchains(), tools, Availability { registry: true });
            assert!(online.is_ok(), "{at}: its toolchain with a registry: {:?}", online.err());
            if select(registry.catalog(), &entry.toolchains(), tools, Availability { registry: false }).is_ok() {
                offline += 1;
            }
            assert!(!entry.test_cmd.trim().is_empty(), "{at}: a test command");
            // The parser is a known kind (the spec would not have loaded otherwise); the
            // command must write the report that parser prefers.
            let report = match entry.log_parser.name() {
                "pytest" => "--junitxml=$VERDICT_OUT/",
                "jest" => "--outputFile=$VERDICT_OUT/",
                "mocha" => "output=$VERDICT_OUT/",
                _ => "",
            };
            assert!(entry.test_cmd.contains(report), "{at}: the test command writes the {report} report");
            if entry.log_parser.name() == "maven" {
                assert!(!entry.collect.is_empty(), "{at}: surefire reports are collected");
            }
            Rules::new(&split, &entry.language, &spec.collect.test_globs, &spec.collect.source_globs, &[], &[])
                .unwrap_or_else(|e| panic!("{at}: {e}"));
        }
    }
    for repo in OMNIGIRL.into_iter().chain(SWEBENCH) {
        assert!(repos.contains(repo), "a built-in spec for {repo}");
        let spec = registry.file(repo).unwrap();
        assert!(
            !spec.collect.version_files.is_empty() || !spec.collect.version_tags.is_empty(),
            "{repo}: a version rule for `verdict collect` (a version file or tags)"
        );
    }
    assert!(entries >= 300, "one entry per version OmniGIRL's harness defines ({entries})");
    // Node.js of any release comes from the npm registry, Java 11 from bullseye, Java 8 from
    // Debian unstable and Python 3.7 and 3.10 from Maven Central, so the JavaScript entries,
    // gson's, netty's and most of the Python ones resolve offline too; Python 3.5, 3.6 and 3.8
    // and Java 19 do not (255 of 327 entries).
    assert!(offline >= 250, "entries that resolve with no container registry: {offline}");
}
