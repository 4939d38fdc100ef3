//! Per-language rules that say which syntax nodes are definitions, what they are called, and
//! where their span starts. The walker in [`super::outline`] applies them.
//!
//! The rules, by language (namespaces and modules — C++ and C# namespaces, Rust `mod`, TypeScript
//! `namespace`, PHP `namespace` — are transparent: they add nothing to names):
//! - Python: `class` → class; `def` (with its decorators) → function; `name = lambda …` outside
//!   functions → function.
//! - JavaScript / TypeScript / TSX: class declarations and named class expressions, TS interfaces
//!   and enums → class; function declarations, methods, TS method and function signatures →
//!   function; `const f = () => …`, `const f = function …`, `const f = wrap(() => …)`,
//!   class fields holding a function, object-literal methods and `key: () => …` pairs, and
//!   `a.b.c = function …` statements → function named after the variable, field, key or
//!   left-hand side; `const obj = { … }` and `key: { … }` → a naming scope (`obj.method`) that is
//!   not a class. Decorators and `export` belong to the declaration.
//! - Java: class, interface, enum, record, annotation type → class; method, constructor, compact
//!   constructor → function. Overloads share one name. Annotations belong to the declaration. A
//!   field's initializer is a naming scope named after the field, so the methods of an anonymous
//!   class that initializes a field are qualified by it (`TypeAdapters.DOUBLE.read`).
//! - Go: `type T struct`/`type T interface` → class; `func f` → function; `func (r *T) m` →
//!   function `T.m` whose class is `T`.
//! - Rust: struct, enum, union, trait, and `impl T` / `impl Trait for T` → class `T`; `fn` →
//!   function. Attributes belong to the item.
//! - C / C++: struct, union, enum, class with a body (a `typedef struct {…} Name` is `Name`) →
//!   class; function definitions and prototypes → function; `void T::m() {…}` → `T.m` whose class
//!   is `T`. A `template <…>` line belongs to its declaration.
//! - C#: class, struct, interface, enum, record → class; method, constructor, destructor,
//!   operator, property, indexer (`this`) → function. Attributes belong to the declaration.
//! - Ruby: `class`, `module` → class (`A::B` is written `A.B`); `def m`, `def self.m` → function.
//! - PHP: class, interface, trait, enum → class; method and function → function.

use tree_sitter::Node;

use super::lang::Language;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DefKind {
    /// A class-like definition: counted at class level and qualifies what it contains.
    Class,
    /// A function-like definition: counted at function level; everything inside folds into it.
    Function,
    /// Only qualifies names (a JS object literal bound to a name); never counted itself.
    Scope,
}

/// A definition found at a node.
pub(crate) struct Found<'t> {
    pub kind: DefKind,
    pub name: String,
    /// A class named outside the definition's own nesting: a Go receiver type, the `T` of a
    /// C++ `T::m` definition.
    pub receiver: Option<String>,
    /// The node whose named children the walk continues with (`None`: the walk stops here).
    pub descend: Option<Node<'t>>,
    /// The first row of the definition, including decorators, annotations, attributes,
    /// `export` and `template <…>` lines.
    pub start_row: usize,
}

const MAX_NAME: usize = 200;

/// The text of a node as a single-line name.
pub(crate) fn name_text(node: Node<'_>, src: &[u8]) -> String {
    let bytes = src.get(node.byte_range()).unwrap_or_default();
    let raw = String::from_utf8_lossy(bytes);
    let mut name: String = raw.split_whitespace().collect::<Vec<_>>().join("");
    if name.len() > MAX_NAME {
        let mut cut = MAX_NAME;
        while !name.is_char_boundary(cut) {
            cut -= 1;
        }
        name.truncate(cut);
    }
    name
}

fn field_text(node: Node<'_>, field: &str, src: &[u8]) -> Option<String> {
    node.child_by_field_name(field).map(|n| name_text(n, src)).filter(|s| !s.is_empty())
}

fn def<'t>(kind: DefKind, name: String, node: Node<'t>, descend: Option<Node<'t>>) -> Found<'t> {
    Found { kind, name, receiver: None, descend, start_row: node.start_position().row }
}

fn function<'t>(name: String, node: Node<'t>) -> Found<'t> {
    def(DefKind::Function, name, node, None)
}

fn class<'t>(name: String, node: Node<'t>) -> Found<'t> {
    let body = node.child_by_field_name("body").unwrap_or(node);
    def(DefKind::Class, name, node, Some(body))
}

/// Whether `node` (with its `parent`, when known) is a definition in `lang`. `lead_row` is the
/// first row of what the walker found attached to the node (decorators, attributes, wrappers;
/// see [`is_attachment`] and [`is_wrapper`]), or `usize::MAX`.
pub(crate) fn classify<'t>(
    lang: Language,
    node: Node<'t>,
    parent: Option<Node<'t>>,
    lead_row: usize,
    src: &[u8],
) -> Option<Found<'t>> {
    let mut found = match lang {
        Language::Python => python(node, src),
        Language::JavaScript | Language::TypeScript | Language::Tsx => js(node, parent, src),
        Language::Java => java(node, parent, src),
        Language::Go => go(node, src),
        Language::Rust => rust(node, src),
        Language::C | Language::Cpp => c_family(node, parent, src),
        Language::CSharp => csharp(node, src),
        Language::Ruby => ruby(node, src),
        Language::Php => php(node, src),
    }?;
    found.start_row = found.start_row.min(lead_row);
    Some(found)
}

/// Nodes that wrap one declaration and belong to it when they hold only that declaration
/// (plus attachments): Python's `decorated_definition`, JS `export`, `const` and expression
/// statements, C++ `template <…>`, Go `type` declarations.
pub(crate) fn is_wrapper(lang: Language, kind: &str) -> bool {
    match lang {
        Language::Python => kind == "decorated_definition",
        Language::JavaScript | Language::TypeScript | Language::Tsx => {
            matches!(kind, "export_statement" | "lexical_declaration" | "variable_declaration" | "expression_statement")
        }
        Language::Cpp | Language::C => kind == "template_declaration",
        Language::Go => kind == "type_declaration",
        _ => false,
    }
}

pub(crate) fn is_comment(kind: &str) -> bool {
    matches!(kind, "comment" | "line_comment" | "block_comment")
}

/// Nodes written before a declaration that belong to it: decorators, attributes, template
/// parameter lists.
pub(crate) fn is_attachment(lang: Language, kind: &str) -> bool {
    match lang {
        Language::Rust => kind == "attribute_item",
        Language::JavaScript | Language::TypeScript | Language::Tsx => kind == "decorator",
        Language::Python => kind == "decorator",
        Language::Cpp | Language::C => kind == "template_parameter_list",
        Language::CSharp | Language::Php => kind == "attribute_list",
        _ => false,
    }
}

fn python<'t>(node: Node<'t>, src: &[u8]) -> Option<Found<'t>> {
    match node.kind() {
        "class_definition" => Some(class(field_text(node, "name", src)?, node)),
        "function_definition" => Some(function(field_text(node, "name", src)?, node)),
        "assignment" => {
            let left = node.child_by_field_name("left").filter(|l| l.kind() == "identifier")?;
            let right = node.child_by_field_name("right")?;
            (right.kind() == "lambda").then(|| function(name_text(left, src), node))
        }
        _ => None,
    }
}

fn is_js_function(node: Node<'_>) -> bool {
    matches!(node.kind(), "arrow_function" | "function_expression" | "function" | "generator_function")
}

/// A call whose direct arguments include a function (`memo(() => …)`, `forwardRef(function …)`).
fn is_js_wrapped_function(node: Node<'_>) -> bool {
    if node.kind() != "call_expression" {
        return false;
    }
    let Some(args) = node.child_by_field_name("arguments") else {
        return false;
    };
    let mut cursor = args.walk();
    let found = args.named_children(&mut cursor).any(is_js_function);
    found
}

fn js_key_name(key: Node<'_>, src: &[u8]) -> String {
    let name = name_text(key, src);
    match key.kind() {
        "string" => name.trim_matches(|c| c == '"' || c == '\'' || c == '`').to_string(),
        _ => name,
    }
}

fn js<'t>(node: Node<'t>, parent: Option<Node<'t>>, src: &[u8]) -> Option<Found<'t>> {
    match node.kind() {
        "class_declaration" | "abstract_class_declaration" | "interface_declaration" | "enum_declaration" => {
            Some(class(field_text(node, "name", src)?, node))
        }
        "class" => {
            // A class expression bound to a variable is named by the variable (handled there).
            if parent.is_some_and(|p| p.kind() == "variable_declarator") {
                return None;
            }
            Some(class(field_text(node, "name", src)?, node))
        }
        "function_declaration"
        | "generator_function_declaration"
        | "function_signature"
        | "method_definition"
        | "method_signature"
        | "abstract_method_signature" => Some(function(field_text(node, "name", src)?, node)),
        "variable_declarator" => {
            let name = node.child_by_field_name("name").filter(|n| n.kind() == "identifier")?;
            let value = node.child_by_field_name("value")?;
            let name = name_text(name, src);
            if is_js_function(value) || is_js_wrapped_function(value) {
                Some(function(name, node))
            } else if value.kind() == "class" {
                let body = value.child_by_field_name("body").unwrap_or(value);
                Some(def(DefKind::Class, name, node, Some(body)))
            } else if value.kind() == "object" {
                Some(def(DefKind::Scope, name, node, Some(value)))
            } else {
                None
            }
        }
        "pair" => {
            let key = node.child_by_field_name("key")?;
            let value = node.child_by_field_name("value")?;
            let name = js_key_name(key, src);
            if is_js_function(value) {
                Some(function(name, node))
            } else if value.kind() == "object" {
                Some(def(DefKind::Scope, name, node, Some(value)))
            } else {
                None
            }
        }
        "field_definition" | "public_field_definition" => {
            let key = node.child_by_field_name("property").or_else(|| node.child_by_field_name("name"))?;
            let value = node.child_by_field_name("value")?;
            (is_js_function(value) || is_js_wrapped_function(value)).then(|| function(js_key_name(key, src), node))
        }
        "assignment_expression" => {
            if parent.is_none_or(|p| p.kind() != "expression_statement") {
                return None;
            }
            let left = node.child_by_field_name("left")?;
            if !matches!(left.kind(), "identifier" | "member_expression") {
                return None;
            }
            let right = node.child_by_field_name("right")?;
            if is_js_function(right) {
                Some(function(name_text(left, src), node))
            } else if right.kind() == "class" {
                let body = right.child_by_field_name("body").unwrap_or(right);
                Some(def(DefKind::Class, name_text(left, src), node, Some(body)))
            } else {
                None
            }
        }
        _ => None,
    }
}

fn java<'t>(node: Node<'t>, parent: Option<Node<'t>>, src: &[u8]) -> Option<Found<'t>> {
    match node.kind() {
        "variable_declarator" if parent.is_some_and(|p| p.kind() == "field_declaration") => {
            let value = node.child_by_field_name("value")?;
            Some(def(DefKind::Scope, field_text(node, "name", src)?, node, Some(value)))
        }
        "class_declaration"
        | "interface_declaration"
        | "enum_declaration"
        | "record_declaration"
        | "annotation_type_declaration" => Some(class(field_text(node, "name", src)?, node)),
        "method_declaration" | "constructor_declaration" | "compact_constructor_declaration" => {
            Some(function(field_text(node, "name", src)?, node))
        }
        _ => None,
    }
}

/// The base name of a type: `*pkg.List[T]` → `List`, `Foo<T>` → `Foo`, `&mut Bar` → `Bar`.
fn base_type_name(node: Node<'_>, src: &[u8]) -> Option<String> {
    match node.kind() {
        "type_identifier" | "identifier" | "primitive_type" | "name" | "constant" => Some(name_text(node, src)),
        "generic_type" | "pointer_type" | "reference_type" | "qualified_type" | "parameter_declaration" => {
            let inner = node.child_by_field_name("type").or_else(|| node.child_by_field_name("name")).unwrap_or(node);
            if inner == node {
                return first_type_identifier(node, src);
            }
            base_type_name(inner, src)
        }
        "scoped_type_identifier" | "scoped_identifier" => {
            node.child_by_field_name("name").and_then(|n| base_type_name(n, src))
        }
        _ => first_type_identifier(node, src),
    }
}

fn first_type_identifier(node: Node<'_>, src: &[u8]) -> Option<String> {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if n.kind() == "type_identifier" {
            return Some(name_text(n, src));
        }
        let mut cursor = n.walk();
        let children: Vec<Node<'_>> = n.named_children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    None
}

fn go<'t>(node: Node<'t>, src: &[u8]) -> Option<Found<'t>> {
    match node.kind() {
        "function_declaration" => Some(function(field_text(node, "name", src)?, node)),
        "method_declaration" => {
            let mut found = function(field_text(node, "name", src)?, node);
            found.receiver = node.child_by_field_name("receiver").and_then(|r| first_type_identifier(r, src));
            Some(found)
        }
        "type_spec" => {
            let ty = node.child_by_field_name("type")?;
            matches!(ty.kind(), "struct_type" | "interface_type")
                .then(|| def(DefKind::Class, field_text(node, "name", src).unwrap_or_default(), node, None))
                .filter(|f| !f.name.is_empty())
        }
        _ => None,
    }
}

fn rust<'t>(node: Node<'t>, src: &[u8]) -> Option<Found<'t>> {
    match node.kind() {
        "function_item" | "function_signature_item" => Some(function(field_text(node, "name", src)?, node)),
        "struct_item" | "enum_item" | "union_item" | "trait_item" => Some(class(field_text(node, "name", src)?, node)),
        "impl_item" => {
            let ty = node.child_by_field_name("type")?;
            Some(class(base_type_name(ty, src)?, node))
        }
        _ => None,
    }
}

/// The name and scope of a C/C++ function declarator chain, e.g. `Foo::bar` → (`bar`, `Foo`).
fn c_function_name(declarator: Node<'_>, src: &[u8]) -> Option<(String, Option<String>)> {
    let mut d = declarator;
    // Walk through pointer/reference/parenthesized/attributed declarators to the function one.
    while d.kind() != "function_declarator" {
        d = d
            .child_by_field_name("declarator")
            .or_else(|| (d.kind() == "reference_declarator").then(|| d.named_child(0)).flatten())?;
    }
    let inner = d.child_by_field_name("declarator")?;
    match inner.kind() {
        "identifier" | "field_identifier" | "destructor_name" | "operator_name" => Some((name_text(inner, src), None)),
        "template_function" => Some((field_text(inner, "name", src)?, None)),
        "qualified_identifier" => {
            let scope = inner.child_by_field_name("scope").map(|s| strip_template_args(&name_text(s, src)));
            // The name may itself be qualified (`a::B::c`): keep its last part, and the part
            // before it as the scope.
            let mut name_node = inner.child_by_field_name("name")?;
            let mut scope = scope;
            while name_node.kind() == "qualified_identifier" {
                scope = name_node.child_by_field_name("scope").map(|s| strip_template_args(&name_text(s, src)));
                name_node = name_node.child_by_field_name("name")?;
            }
            let name = match name_node.kind() {
                "template_function" => field_text(name_node, "name", src)?,
                _ => name_text(name_node, src),
            };
            let class = scope.filter(|s| !s.is_empty());
            Some((name, class))
        }
        _ => None,
    }
}

fn strip_template_args(s: &str) -> String {
    let mut out = String::new();
    let mut depth = 0usize;
    for c in s.chars() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

fn c_family<'t>(node: Node<'t>, parent: Option<Node<'t>>, src: &[u8]) -> Option<Found<'t>> {
    match node.kind() {
        "function_definition" | "declaration" | "field_declaration" => {
            let declarator = node.child_by_field_name("declarator")?;
            let (name, scope) = c_function_name(declarator, src)?;
            let mut found = function(name, node);
            // `void T::m()`: the class is the last part of the scope.
            found.receiver = scope.map(|s| s.rsplit("::").next().unwrap_or(&s).to_string());
            Some(found)
        }
        "struct_specifier" | "union_specifier" | "enum_specifier" | "class_specifier" => {
            let body = node.child_by_field_name("body")?;
            let name = match field_text(node, "name", src) {
                Some(name) => strip_template_args(&name),
                None => {
                    // `typedef struct { … } Name;`
                    let typedef = parent.filter(|p| p.kind() == "type_definition")?;
                    field_text(typedef, "declarator", src)?
                }
            };
            let name = name.rsplit("::").next().unwrap_or(&name).to_string();
            Some(def(DefKind::Class, name, node, Some(body)))
        }
        _ => None,
    }
}

fn csharp<'t>(node: Node<'t>, src: &[u8]) -> Option<Found<'t>> {
    match node.kind() {
        "class_declaration"
        | "struct_declaration"
        | "interface_declaration"
        | "enum_declaration"
        | "record_declaration"
        | "record_struct_declaration" => Some(class(field_text(node, "name", src)?, node)),
        "method_declaration"
        | "constructor_declaration"
        | "destructor_declaration"
        | "property_declaration"
        | "event_declaration"
        | "local_function_statement" => Some(function(field_text(node, "name", src)?, node)),
        "indexer_declaration" => Some(function("this".to_string(), node)),
        "operator_declaration" | "conversion_operator_declaration" => {
            let op = field_text(node, "operator", src).or_else(|| field_text(node, "type", src)).unwrap_or_default();
            Some(function(format!("operator{op}"), node))
        }
        _ => None,
    }
}

fn ruby<'t>(node: Node<'t>, src: &[u8]) -> Option<Found<'t>> {
    match node.kind() {
        "class" | "module" => {
            let name = field_text(node, "name", src)?.replace("::", ".");
            Some(def(DefKind::Class, name, node, Some(node)))
        }
        "method" | "singleton_method" => Some(function(field_text(node, "name", src)?, node)),
        _ => None,
    }
}

fn php<'t>(node: Node<'t>, src: &[u8]) -> Option<Found<'t>> {
    match node.kind() {
        "class_declaration" | "interface_declaration" | "trait_declaration" | "enum_declaration" => {
            Some(class(field_text(node, "name", src)?, node))
        }
        "method_declaration" | "function_definition" => Some(function(field_text(node, "name", src)?, node)),
        _ => None,
    }
}
