//! Hand-checked fixtures, one per language plus file operations and parse errors. Each case in
//! tests/fixtures/localize/<case>/ holds `before/` (the base snapshot), `after/` and the real
//! `git diff` between them (`patch.diff`, made by make_fixtures.py). The expected entities below
//! were worked out by reading each patch against the naming rules, not copied from output.

use std::path::{Path, PathBuf};

use crate::localize::sections::apply_strictly;
use crate::localize::{locate, FileNote, MemorySnapshot, PatchLocations, SnapshotCache};
use crate::patch::Patch;

fn case_dir(case: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/localize").join(case)
}

fn read_tree(root: &Path) -> MemorySnapshot {
    let mut snapshot = MemorySnapshot::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("fixture directory") {
            let path = entry.expect("fixture entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(root).expect("inside root").to_string_lossy().replace('\\', "/");
                snapshot.insert(rel, std::fs::read(&path).expect("fixture file"));
            }
        }
    }
    snapshot
}

/// The `before` or `after` tree of a case.
pub(super) fn load_tree(case: &str, side: &str) -> MemorySnapshot {
    read_tree(&case_dir(case).join(side))
}

pub(super) fn load(case: &str) -> (MemorySnapshot, String) {
    let dir = case_dir(case);
    let patch = std::fs::read_to_string(dir.join("patch.diff")).expect("patch.diff");
    (read_tree(&dir.join("before")), patch)
}

fn list(prefix: &str, names: &[&str]) -> Vec<String> {
    names.iter().map(|n| format!("{prefix}{n}")).collect()
}

/// Expected locations of a single-file case: names are given without the `path:` prefix.
struct One<'a> {
    classes: &'a [&'a str],
    added_classes: &'a [&'a str],
    functions: &'a [&'a str],
    added_functions: &'a [&'a str],
}

fn check_one(case: &str, path: &str, want: One<'_>) {
    let (snapshot, patch) = load(case);
    let got = locate(&patch, &snapshot).unwrap_or_else(|e| panic!("{case}: {e}"));
    let p = format!("{path}:");
    assert_eq!(got.files, vec![path.to_string()], "{case}: files");
    assert!(got.created_files.is_empty(), "{case}: created {:?}", got.created_files);
    assert_eq!(got.classes, list(&p, want.classes), "{case}: classes");
    assert_eq!(got.added_classes, list(&p, want.added_classes), "{case}: added classes");
    assert_eq!(got.functions, list(&p, want.functions), "{case}: functions");
    assert_eq!(got.added_functions, list(&p, want.added_functions), "{case}: added functions");
    assert!(got.parse_errors.is_empty(), "{case}: parse errors {:?}", got.parse_errors);
}

/// Applying each real patch to `before/` must give exactly `after/`.
#[test]
fn patches_apply_to_exactly_the_after_tree() {
    for case in [
        "python",
        "javascript",
        "typescript",
        "java",
        "go",
        "rust",
        "c",
        "cpp",
        "csharp",
        "ruby",
        "php",
        "parse_error",
        "files",
    ] {
        let (snapshot, patch) = load(case);
        let after = read_tree(&case_dir(case).join("after"));
        let files = apply_strictly(&Patch::parse(&patch), &snapshot, &mut SnapshotCache::default())
            .unwrap_or_else(|e| panic!("{case}: {e}"));
        for file in files {
            match &file.contents {
                _ if file.binary => {}
                Some(contents) => {
                    assert_eq!(Some(contents), after.files.get(&file.path), "{case}: {} differs from after/", file.path)
                }
                None => assert!(!after.files.contains_key(&file.path), "{case}: {} not deleted", file.path),
            }
        }
    }
}

#[test]
fn python_decorators_nested_classes_nested_functions_lambdas() {
    check_one(
        "python",
        "pkg/models.py",
        One {
            // `@property` belongs to `label`; `ordering` is a line of Meta outside any method.
            classes: &["Shape", "Shape.Meta", "Square"],
            added_classes: &["Circle"],
            // `helper` folds into Square.area; `scale = lambda …` is a function.
            functions: &["Shape.label", "Shape.Meta.describe", "Square.area", "scale"],
            added_functions: &["Square.perimeter", "Circle.__init__"],
        },
    );
}

#[test]
fn javascript_arrow_functions_object_methods_prototype_and_callbacks() {
    check_one(
        "javascript",
        "src/widget.js",
        One {
            // `static count` is a class line outside any method.
            classes: &["Widget"],
            added_classes: &[],
            // render() inside the returned object folds into createWidget; the map callback
            // folds into load; the top-level describe/it callbacks count at file level only.
            functions: &[
                "createWidget",
                "formatLabel",
                "utils.round",
                "Widget.prototype.resize",
                "Widget.handleClick",
                "Widget.load",
            ],
            added_functions: &["toggle"],
        },
    );
}

#[test]
fn typescript_and_tsx_decorators_interfaces_enums_namespaces_overloads() {
    let (snapshot, patch) = load("typescript");
    let got = locate(&patch, &snapshot).expect("typescript");
    let svc = "src/service.ts:";
    let view = "src/view.tsx:";
    let want = PatchLocations {
        files: vec!["src/service.ts".into(), "src/view.tsx".into()],
        // Interfaces and enums are class-like.
        classes: list(svc, &["Options", "Mode", "Service"]),
        functions: [
            // `@Log()` is a sibling decorator of fetch; `namespace Helpers` adds no name; the
            // overload signature and the implementation share `fetchText`.
            list(svc, &["Service.fetch", "Service.onError", "join", "fetchText"]),
            // `React.memo(function Inner…)` takes the variable's name.
            list(view, &["Header", "App", "Memo"]),
        ]
        .concat(),
        ..PatchLocations::default()
    };
    assert_eq!(got, want);
}

#[test]
fn java_inner_classes_overloads_annotations_anonymous_classes() {
    check_one(
        "java",
        "src/main/java/com/acme/Parser.java",
        One {
            classes: &["Parser", "Parser.Token", "Parser.Token.Kind", "Parser.Visitor"],
            added_classes: &[],
            // Both `parse` overloads are `Parser.parse`; the added `@SuppressWarnings` line
            // belongs to toString; the anonymous Runnable initializes the field `task`, so its
            // run() is `Parser.task.run`.
            functions: &[
                "Parser.parse",
                "Parser.toString",
                "Parser.Token.isEmpty",
                "Parser.Token.Kind.numeric",
                "Parser.task.run",
            ],
            added_functions: &["Parser.Token.length", "Parser.Visitor.leave"],
        },
    );
}

#[test]
fn go_receivers_name_methods_and_classes() {
    check_one(
        "go",
        "store/store.go",
        One {
            classes: &["Store", "Reader"],
            added_classes: &[],
            functions: &["New", "Store.Get"],
            added_functions: &["Store.Put"],
        },
    );
}

#[test]
fn rust_impls_traits_attributes_and_modules() {
    check_one(
        "rust",
        "src/lib.rs",
        One {
            // `#[derive]` belongs to the struct, `#[inline]` to norm; `impl Display for Point`
            // is class Point; `mod tests` adds no name.
            classes: &["Point", "Shape"],
            added_classes: &[],
            functions: &["Point.norm", "Point.fmt", "Shape.name", "norm_works"],
            added_functions: &["unit"],
        },
    );
}

#[test]
fn c_functions_typedef_structs_prototypes_and_macros() {
    let (snapshot, patch) = load("c");
    let got = locate(&patch, &snapshot).expect("c");
    let want = PatchLocations {
        files: vec!["src/buf.c".into(), "src/buf.h".into()],
        classes: vec!["src/buf.c:buffer".into()],
        // The BUF_INIT macro counts at file level only; a changed prototype is a function.
        functions: vec!["src/buf.c:grow".into(), "src/buf.c:buf_append".into(), "src/buf.h:buf_free".into()],
        added_functions: vec!["src/buf.h:buf_reserve".into()],
        ..PatchLocations::default()
    };
    assert_eq!(got, want);
}

#[test]
fn cpp_templates_out_of_line_methods_and_namespaces() {
    check_one(
        "cpp",
        "src/shape.cpp",
        One {
            // The `template <…>` line belongs to Box; `Circle::area` makes Circle a class of
            // this file even though Circle is declared in a header.
            classes: &["Box", "Circle", "Config"],
            added_classes: &[],
            // The in-class prototype and the out-of-line definition are both Box.set.
            functions: &["Box.get", "Box.set", "Circle.area", "main"],
            added_functions: &[],
        },
    );
}

#[test]
fn csharp_attributes_properties_and_nested_classes() {
    check_one(
        "csharp",
        "Src/Account.cs",
        One {
            classes: &["Account", "Account.Statement"],
            added_classes: &[],
            functions: &["Account.Balance", "Account.Deposit", "Account.Statement.Render"],
            added_functions: &["Account.Withdraw"],
        },
    );
}

#[test]
fn ruby_modules_singleton_methods_and_blocks() {
    check_one(
        "ruby",
        "lib/cart.rb",
        One {
            classes: &["Shop.Cart", "Shop.Pricing"],
            added_classes: &[],
            // `class << self` adds no name; the each-block folds into from.
            functions: &["Shop.Cart.add", "Shop.Cart.empty", "Shop.Cart.from", "Shop.Pricing.total"],
            added_functions: &[],
        },
    );
}

#[test]
fn php_attributes_traits_and_functions() {
    check_one(
        "php",
        "src/Invoice.php",
        One {
            classes: &["Invoice", "Printable"],
            added_classes: &[],
            functions: &["Invoice.total", "Printable.print", "format_money"],
            added_functions: &["Invoice.count"],
        },
    );
}

#[test]
fn renames_created_deleted_binary_and_mode_changes() {
    let (snapshot, patch) = load("files");
    let got = locate(&patch, &snapshot).expect("files");
    assert_eq!(
        got.files,
        [
            "assets/logo.png",
            "docs/README.md",
            "scripts/run.sh",
            "src/a.py",
            "src/gone.py",
            // A renamed file keeps its pre-image path.
            "src/old_name.py",
        ]
    );
    assert_eq!(got.created_files, ["src/created.py"]);
    assert!(got.classes.is_empty() && got.added_classes.is_empty());
    // The deleted file's function is not listed (file level only); the renamed file's
    // function is named with the pre-image path.
    assert_eq!(got.functions, ["src/a.py:one", "src/old_name.py:describe"]);
    assert!(got.added_functions.is_empty());
    let note = |path: &str, reason: &str| FileNote { path: path.into(), reason: reason.into() };
    assert_eq!(
        got.notes,
        [
            note("assets/logo.png", "binary patch: scored at file level only"),
            note("docs/README.md", "no grammar for `.md` files: scored at file level only"),
            note("src/created.py", "created by the patch: listed, not scored"),
            note("src/gone.py", "deleted by the patch: scored at file level only"),
        ]
    );
}

#[test]
fn syntax_errors_limit_only_the_broken_definitions_to_file_level() {
    let (snapshot, patch) = load("parse_error");
    let got = locate(&patch, &snapshot).expect("parse_error");
    assert_eq!(got.files, ["app.py", "broken.js"]);
    // app.py: the patch breaks g in the post-image, so g's added line is not mapped, but its
    // removed line is (g parses in the pre-image), and f parses on both sides.
    // broken.js: `broken(` does not parse in the pre-image, so its changed line counts at file
    // level only; `ok` parses and maps.
    assert_eq!(got.functions, ["app.py:f", "app.py:g", "broken.js:ok"]);
    assert!(got.classes.is_empty() && got.added_functions.is_empty());
    assert_eq!(got.parse_errors.len(), 3, "{:?}", got.parse_errors);
    let errors: Vec<(&str, &str)> =
        got.parse_errors.iter().map(|e| (e.path.as_str(), e.reason.split(':').next().unwrap_or_default())).collect();
    assert_eq!(errors, [("app.py", "post-image"), ("broken.js", "pre-image"), ("broken.js", "post-image")]);
    assert!(got.parse_errors[0].reason.starts_with("post-image: syntax error at line 6"), "{}", got.parse_errors[0]);
    assert!(got.parse_errors[1].reason.starts_with("pre-image: syntax error at line 5"), "{}", got.parse_errors[1]);
    let notes: Vec<String> = got.notes.iter().map(|n| n.to_string()).collect();
    assert_eq!(
        notes,
        [
            "app.py: syntax errors: 1 changed lines inside definitions with errors count at file level only",
            "broken.js: syntax errors: 2 changed lines inside definitions with errors count at file level only",
        ]
    );
}

#[test]
fn java_anonymous_classes_in_field_initializers_are_named_after_their_field() {
    // Gson's TypeAdapters shape: every adapter's `read` would otherwise be `TypeAdapters.read`.
    let before = "public final class TypeAdapters {
  public static final TypeAdapter<Number> DOUBLE = new TypeAdapter<Number>() {
    @Override
    public Number read(JsonReader in) {
      return in.nextDouble();
    }
  };

  public static final TypeAdapter<Number> FLOAT = new TypeAdapter<Number>() {
    @Override
    public Number read(JsonReader in) {
      return (float) in.nextDouble();
    }
  }.nullSafe();
}
";
    let snapshot: MemorySnapshot = [("TypeAdapters.java", before)].into_iter().collect();
    let patch = "--- a/TypeAdapters.java\n+++ b/TypeAdapters.java\n@@ -4,3 +4,3 @@\n     public Number read(JsonReader in) {\n-      return in.nextDouble();\n+      return (double) in.nextDouble();\n     }\n";
    let got = locate(patch, &snapshot).expect("applies");
    assert_eq!(got.functions, ["TypeAdapters.java:TypeAdapters.DOUBLE.read"]);
    assert_eq!(got.classes, ["TypeAdapters.java:TypeAdapters"]);
    let other = patch
        .replace("@@ -4,3 +4,3 @@", "@@ -11,3 +11,3 @@")
        .replace("in.nextDouble();\n+", "(float) in.nextDouble();\n+");
    let other = other.replace("+      return (double) in.nextDouble();", "+      return (float) in.nextFloat();");
    let got = locate(&other, &snapshot).expect("applies");
    assert_eq!(got.functions, ["TypeAdapters.java:TypeAdapters.FLOAT.read"]);
}
