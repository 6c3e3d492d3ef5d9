//! The crate's layers, checked from its source text.
//!
//! Each top-level module belongs to one layer and imports only modules of its own layer or
//! below:
//!
//! | layer | modules                                                    |
//! |-------|------------------------------------------------------------|
//! | 0 base      | `rng`, `card`, `error`, `event`, `interrupt`, `pool`, `record`, `user_file`, `nn`, `contract` |
//! | 1 games     | every folder with a `contract.rs` (`head`, `climb`; never each other) |
//! | 2 consumers | `search`, `bots`, `sim`, `vecenv` (one-way, see [`CONSUMER_ORDER`]) |
//! | 3 registry  | `games` (what the consumers tune per game)           |
//! | 4 binding   | `py`                                                 |
//!
//! `lib.rs` only declares and re-exports, so it is exempt. Inside a folder, the files form no
//! cycle either: a file that two others share sits below both. A `mod.rs` that only declares and
//! re-exports its children is the folder's facade: an import through it counts as an import of
//! the file that defines the item, and the facade itself takes part in no cycle.
//!
//! Code under `#[cfg(test)]` is left out: a unit test may drive its module with a bot or the
//! batch loop without making the library depend on them. Comments, doc links and string
//! literals are left out as well (they are not imports).
//!
//! The checker is a small scanner of Rust source (no parser dependency): it blanks comments and
//! literals, cuts `#[cfg(test)]` items, reads every `use` tree and every `crate::`/`super::`/
//! `self::`/child-module path in code, and resolves each to the file that defines the item,
//! following `use`/`pub use` re-exports. The self-tests at the end feed it small source sets
//! with a known upward import or a known cycle, so a checker that finds nothing fails.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fs;
use std::path::Path;

/// The layer of each top-level module (the first component of its path under `src/`).
const LAYERS: &[(&str, u8, &str)] = &[
    ("rng", 0, "base"),
    ("card", 0, "base"),
    ("error", 0, "base"),
    ("event", 0, "base"),
    ("interrupt", 0, "base"),
    ("pool", 0, "base"),
    ("record", 0, "base"),
    ("user_file", 0, "base"),
    ("nn", 0, "base"),
    ("contract", 0, "base"),
    ("seat", 0, "base"),
    ("search", 2, "consumers"),
    ("bots", 2, "consumers"),
    ("sim", 2, "consumers"),
    ("vecenv", 2, "consumers"),
    ("games", 3, "registry"),
    ("py", 4, "binding"),
];

/// Among the consumers, a module may import only the ones listed before it: search is the
/// lowest (generic over the game contract, no bot in it), a bot may run a search (ISMCTS is a
/// bot), the batch loop plays bots, and the vector env may reuse all three.
const CONSUMER_ORDER: &[&str] = &["search", "bots", "sim", "vecenv"];

/// Modules of the base layer may import each other (one way: a cycle still fails); the games
/// are independent of each other.
fn same_layer_allowed(from: &str, to: &str, layer: u8) -> bool {
    match layer {
        0 => true,
        2 => {
            let pos = |m: &str| CONSUMER_ORDER.iter().position(|c| *c == m);
            matches!((pos(from), pos(to)), (Some(a), Some(b)) if b < a)
        }
        _ => false,
    }
}

fn layer_of(top: &str) -> Option<(u8, &'static str)> {
    LAYERS
        .iter()
        .find(|(m, _, _)| *m == top)
        .map(|(_, l, n)| (*l, *n))
        .or_else(|| games().contains(&top.to_string()).then_some((1, "games")))
}

/// The games: the top-level folders of `src/` that hold a game's contract (`contract.rs`, its
/// trait implementations), so a new game needs no line in this file.
fn games() -> Vec<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut games: Vec<String> = fs::read_dir(&src)
        .expect("read src")
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("contract.rs").is_file())
        .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    games.sort();
    games
}

// ---------------------------------------------------------------------------------------------
// Scanning: comments, literals and test code out, then tokens.
// ---------------------------------------------------------------------------------------------

/// The text with comments, string and char literals replaced by spaces (newlines kept, so line
/// numbers stay right).
fn blank_non_code(text: &str) -> Vec<char> {
    let src: Vec<char> = text.chars().collect();
    let mut out = src.clone();
    let blank = |out: &mut Vec<char>, from: usize, to: usize| {
        for c in out.iter_mut().take(to.min(src.len())).skip(from) {
            if *c != '\n' {
                *c = ' ';
            }
        }
    };
    let mut i = 0;
    while i < src.len() {
        let c = src[i];
        let next = src.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            let end = src[i..]
                .iter()
                .position(|&c| c == '\n')
                .map_or(src.len(), |p| i + p);
            blank(&mut out, i, end);
            i = end;
        } else if c == '/' && next == Some('*') {
            let (mut j, mut depth) = (i + 2, 1);
            while j < src.len() && depth > 0 {
                if src[j] == '/' && src.get(j + 1) == Some(&'*') {
                    depth += 1;
                    j += 2;
                } else if src[j] == '*' && src.get(j + 1) == Some(&'/') {
                    depth -= 1;
                    j += 2;
                } else {
                    j += 1;
                }
            }
            blank(&mut out, i, j);
            i = j;
        } else if let Some(end) = raw_string_end(&src, i) {
            blank(&mut out, i, end);
            i = end;
        } else if c == '"' {
            let mut j = i + 1;
            while j < src.len() && src[j] != '"' {
                j += if src[j] == '\\' { 2 } else { 1 };
            }
            blank(&mut out, i, j + 1);
            i = j + 1;
        } else if c == '\'' {
            // A char literal ('a', '\n', '\u{1F600}') or a lifetime ('a): only the former closes.
            if next == Some('\\') {
                // Skip the escaped character itself: '\'' and '\\' end one further on.
                let mut j = i + 3;
                while j < src.len() && src[j] != '\'' {
                    j += 1;
                }
                blank(&mut out, i, j + 1);
                i = j + 1;
            } else if src.get(i + 2) == Some(&'\'') {
                blank(&mut out, i, i + 3);
                i += 3;
            } else {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    out
}

fn ident_char_before(src: &[char], i: usize) -> bool {
    i > 0 && (src[i - 1].is_alphanumeric() || src[i - 1] == '_')
}

/// The end of a raw string (`r"…"`, `r#"…"#`, `br"…"`) starting at `i`, if one starts there.
fn raw_string_end(src: &[char], i: usize) -> Option<usize> {
    if ident_char_before(src, i) {
        return None;
    }
    let mut j = i;
    if src.get(j) == Some(&'b') {
        j += 1;
    }
    if src.get(j) != Some(&'r') {
        return None;
    }
    j += 1;
    let hashes = src[j..].iter().take_while(|&&c| c == '#').count();
    j += hashes;
    if src.get(j) != Some(&'"') {
        return None;
    }
    j += 1;
    while j < src.len() {
        if src[j] == '"'
            && src[j + 1..]
                .iter()
                .take(hashes)
                .filter(|&&c| c == '#')
                .count()
                == hashes
        {
            return Some(j + 1 + hashes);
        }
        j += 1;
    }
    Some(src.len())
}

/// Blanks every item under `#[cfg(test)]` (a `mod tests { … }`, a test-only `use` or `fn`).
fn strip_cfg_test(chars: &mut [char]) {
    const ATTR: &str = "#[cfg(test)]";
    let attr: Vec<char> = ATTR.chars().collect();
    let mut i = 0;
    while i + attr.len() <= chars.len() {
        if chars[i..i + attr.len()] != attr[..] {
            i += 1;
            continue;
        }
        let end = item_end(chars, i + attr.len());
        for c in chars.iter_mut().take(end).skip(i) {
            if *c != '\n' {
                *c = ' ';
            }
        }
        i = end;
    }
}

/// The end of the item starting at `i`: its `;` or its closing `}`, whichever comes first at
/// depth 0 (brackets of further attributes and signatures are skipped).
fn item_end(chars: &[char], mut i: usize) -> usize {
    let mut depth = 0i32;
    while i < chars.len() {
        match chars[i] {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            ';' if depth == 0 => return i + 1,
            '{' if depth == 0 => {
                let mut braces = 0;
                while i < chars.len() {
                    match chars[i] {
                        '{' => braces += 1,
                        '}' => {
                            braces -= 1;
                            if braces == 0 {
                                return i + 1;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
                return i;
            }
            _ => {}
        }
        i += 1;
    }
    i
}

#[derive(Clone, Debug, PartialEq)]
struct Token {
    text: String,
    line: usize,
}

fn tokenize(chars: &[char]) -> Vec<Token> {
    let mut tokens = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let mut text: String = chars[start..i].iter().collect();
            if start > 0 && chars[start - 1] == '$' && text == "crate" {
                text = "$crate".into();
            }
            tokens.push(Token { text, line });
        } else if c == ':' && chars.get(i + 1) == Some(&':') {
            tokens.push(Token {
                text: "::".into(),
                line,
            });
            i += 2;
        } else {
            tokens.push(Token {
                text: c.to_string(),
                line,
            });
            i += 1;
        }
    }
    tokens
}

fn is_ident(t: &str) -> bool {
    t.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$')
}

// ---------------------------------------------------------------------------------------------
// Reading one file: its module paths, definitions and imports.
// ---------------------------------------------------------------------------------------------

/// A path named in a file, relative to the module it appears in.
#[derive(Clone, Debug)]
struct Named {
    /// The module (absolute, from the crate root) the path is written in.
    module: Vec<String>,
    segments: Vec<String>,
    line: usize,
    /// A `use` at the top level of the file (not in a function or an inline module): its last
    /// segment (or alias) names the item in this file for paths that go through it.
    top_use: Option<String>,
    glob: bool,
}

#[derive(Debug, Default)]
struct FileInfo {
    /// The module path of the file (`climb/deck.rs` → `["climb", "deck"]`).
    module: Vec<String>,
    /// Inline (non-test) modules declared in it, absolute.
    inline_modules: Vec<Vec<String>>,
    /// Modules declared as `mod x;`, absolute.
    declared: Vec<Vec<String>>,
    /// Items defined at the top level of the file.
    defines: HashSet<String>,
    named: Vec<Named>,
    /// Only `mod` and `use` items: the folder's facade.
    facade: bool,
}

fn module_of_file(path: &str) -> Vec<String> {
    let stem = path.trim_end_matches(".rs");
    let mut parts: Vec<String> = stem.split('/').map(String::from).collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
        parts.pop();
    }
    parts
}

const DEFINING: &[&str] = &[
    "fn", "struct", "enum", "trait", "type", "const", "static", "union", "mod",
];

fn scan_file(path: &str, text: &str) -> FileInfo {
    let mut chars = blank_non_code(text);
    strip_cfg_test(&mut chars);
    let tokens = tokenize(&chars);
    let module = module_of_file(path);
    let mut info = FileInfo {
        module: module.clone(),
        facade: !tokens.iter().any(|t| {
            DEFINING[..DEFINING.len() - 1].contains(&t.text.as_str())
                || t.text == "impl"
                || t.text == "macro_rules"
        }),
        ..FileInfo::default()
    };
    // (name, brace depth at which its body opened)
    let mut stack: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let current = |stack: &[(String, usize)]| -> Vec<String> {
        let mut m = module.clone();
        m.extend(stack.iter().map(|(n, _)| n.clone()));
        m
    };
    let mut i = 0;
    while i < tokens.len() {
        let t = tokens[i].text.as_str();
        let prev = if i > 0 {
            tokens[i - 1].text.as_str()
        } else {
            ""
        };
        match t {
            "{" => depth += 1,
            "}" => {
                depth = depth.saturating_sub(1);
                while stack.last().is_some_and(|(_, d)| *d > depth) {
                    stack.pop();
                }
            }
            "mod" if tokens.get(i + 1).is_some_and(|n| is_ident(&n.text)) => {
                let name = tokens[i + 1].text.clone();
                let mut path = current(&stack);
                path.push(name.clone());
                match tokens.get(i + 2).map(|t| t.text.as_str()) {
                    Some("{") => {
                        info.inline_modules.push(path);
                        depth += 1;
                        stack.push((name, depth));
                        i += 3;
                        continue;
                    }
                    _ => info.declared.push(path),
                }
            }
            "macro_rules" if tokens.get(i + 1).is_some_and(|n| n.text == "!") => {
                if let Some(name) = tokens.get(i + 2) {
                    if depth == 0 {
                        info.defines.insert(name.text.clone());
                    }
                }
            }
            "use" => {
                let top = depth == 0 && stack.is_empty();
                let (trees, end) = parse_use(&tokens, i + 1);
                for (segments, alias, glob, line) in trees {
                    let last = alias.or_else(|| segments.last().cloned());
                    info.named.push(Named {
                        module: current(&stack),
                        segments,
                        line,
                        top_use: if top && !glob { last } else { None },
                        glob,
                    });
                }
                i = end;
                continue;
            }
            _ if DEFINING.contains(&t) && depth == 0 && stack.is_empty() => {
                if let Some(n) = tokens.get(i + 1).filter(|n| is_ident(&n.text)) {
                    info.defines.insert(n.text.clone());
                }
            }
            _ if is_ident(t)
                && prev != "::"
                && tokens.get(i + 1).is_some_and(|n| n.text == "::") =>
            {
                let (segments, end) = code_path(&tokens, i);
                if segments.len() > 1 {
                    info.named.push(Named {
                        module: current(&stack),
                        segments,
                        line: tokens[i].line,
                        top_use: None,
                        glob: false,
                    });
                }
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    info
}

/// A path in code: `a::b::c` (stopping before `::<`, `::{` or `::*`).
fn code_path(tokens: &[Token], start: usize) -> (Vec<String>, usize) {
    let mut segments = vec![tokens[start].text.clone()];
    let mut i = start + 1;
    while i + 1 < tokens.len() && tokens[i].text == "::" && is_ident(&tokens[i + 1].text) {
        segments.push(tokens[i + 1].text.clone());
        i += 2;
    }
    (segments, i)
}

type UseTree = (Vec<String>, Option<String>, bool, usize);

/// The paths of one `use` declaration starting at `start` (after `use`), and the index after
/// its `;`.
fn parse_use(tokens: &[Token], start: usize) -> (Vec<UseTree>, usize) {
    let mut out = Vec::new();
    let mut i = start;
    if tokens.get(i).is_some_and(|t| t.text == "::") {
        i += 1;
    }
    use_tree(tokens, &mut i, Vec::new(), &mut out);
    while i < tokens.len() && tokens[i].text != ";" {
        i += 1;
    }
    (out, i + 1)
}

fn use_tree(tokens: &[Token], i: &mut usize, prefix: Vec<String>, out: &mut Vec<UseTree>) {
    let mut path = prefix;
    let line = tokens.get(*i).map_or(0, |t| t.line);
    loop {
        let Some(t) = tokens.get(*i) else { return };
        match t.text.as_str() {
            "*" => {
                *i += 1;
                out.push((path, None, true, line));
                return;
            }
            "{" => {
                *i += 1;
                loop {
                    match tokens.get(*i).map(|t| t.text.as_str()) {
                        None => return,
                        Some("}") => {
                            *i += 1;
                            return;
                        }
                        Some(",") => *i += 1,
                        Some(_) => use_tree(tokens, i, path.clone(), out),
                    }
                }
            }
            "self" if !path.is_empty() => {
                *i += 1;
                let alias = use_alias(tokens, i);
                out.push((path, alias, false, t.line));
                return;
            }
            name if is_ident(name) => {
                path.push(name.to_string());
                *i += 1;
                if tokens.get(*i).is_some_and(|t| t.text == "::") {
                    *i += 1;
                    continue;
                }
                let alias = use_alias(tokens, i);
                out.push((path, alias, false, t.line));
                return;
            }
            _ => return,
        }
    }
}

fn use_alias(tokens: &[Token], i: &mut usize) -> Option<String> {
    if tokens.get(*i).is_some_and(|t| t.text == "as") {
        let alias = tokens.get(*i + 1).map(|t| t.text.clone());
        *i += 2;
        return alias.filter(|a| a != "_");
    }
    None
}

// ---------------------------------------------------------------------------------------------
// Resolving: every named path to the file that defines its item.
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Edge {
    from: String,
    line: usize,
    to: String,
    /// The path as written, for the report.
    written: String,
}

struct Crate {
    files: BTreeMap<String, FileInfo>,
    /// Every module path → the file holding it.
    module_file: HashMap<Vec<String>, String>,
}

impl Crate {
    fn new(sources: &[(String, String)]) -> Self {
        let mut files = BTreeMap::new();
        let mut module_file = HashMap::new();
        for (path, text) in sources {
            let info = scan_file(path, text);
            module_file.insert(info.module.clone(), path.clone());
            for m in &info.inline_modules {
                module_file.insert(m.clone(), path.clone());
            }
            files.insert(path.clone(), info);
        }
        Crate { files, module_file }
    }

    fn is_module(&self, path: &[String]) -> bool {
        self.module_file.contains_key(path)
    }

    /// The absolute path of `segments` written in `module`, or `None` for a path that leaves
    /// the crate (std, a dependency) or names a local item that is no module.
    fn absolute(&self, module: &[String], segments: &[String]) -> Option<Vec<String>> {
        let mut base: Vec<String> = module.to_vec();
        let mut rest = segments;
        match rest.first().map(String::as_str) {
            Some("crate") | Some("$crate") => {
                base.clear();
                rest = &rest[1..];
            }
            Some("self") => rest = &rest[1..],
            Some("super") => {
                while rest.first().is_some_and(|s| s == "super") {
                    base.pop()?;
                    rest = &rest[1..];
                }
            }
            Some(first) => {
                let mut child = base.clone();
                child.push(first.to_string());
                if !self.is_module(&child) {
                    return None;
                }
            }
            None => return None,
        }
        base.extend(rest.iter().cloned());
        Some(base)
    }

    /// The file that defines the item at the absolute `path` (following re-exports).
    fn file_of(&self, path: &[String], seen: &mut HashSet<Vec<String>>) -> Option<String> {
        if !seen.insert(path.to_vec()) {
            return None;
        }
        let split = (0..=path.len())
            .rev()
            .find(|&k| self.is_module(&path[..k]))?;
        let file = self.module_file[&path[..split]].clone();
        let Some(item) = path.get(split) else {
            return Some(file);
        };
        let module = &path[..split];
        let info = &self.files[&file];
        if info.defines.contains(item) {
            return Some(file);
        }
        for named in info.named.iter().filter(|n| n.module == module) {
            if named.top_use.as_deref() == Some(item.as_str()) {
                if let Some(target) = self.absolute(&named.module, &named.segments) {
                    let mut full = target;
                    full.extend(path[split + 1..].iter().cloned());
                    return self.file_of(&full, seen).or(Some(file));
                }
            }
        }
        for named in info.named.iter().filter(|n| n.glob && n.module == module) {
            let Some(mut target) = self.absolute(&named.module, &named.segments) else {
                continue;
            };
            let Some(glob_file) = self.module_file.get(&target) else {
                continue;
            };
            let source = &self.files[glob_file];
            let mut child = target.clone();
            child.push(item.clone());
            let offers = source.defines.contains(item)
                || source
                    .named
                    .iter()
                    .any(|n| n.top_use.as_deref() == Some(item.as_str()))
                || self.is_module(&child);
            if offers {
                target.extend(path[split..].iter().cloned());
                return self.file_of(&target, seen).or(Some(file));
            }
        }
        Some(file)
    }

    fn edges(&self) -> Vec<Edge> {
        let mut edges = BTreeSet::new();
        for (path, info) in &self.files {
            for named in &info.named {
                let Some(target) = self.absolute(&named.module, &named.segments) else {
                    continue;
                };
                let Some(to) = self.file_of(&target, &mut HashSet::new()) else {
                    continue;
                };
                if to != *path {
                    edges.insert(Edge {
                        from: path.clone(),
                        line: named.line,
                        to,
                        written: named.segments.join("::"),
                    });
                }
            }
        }
        edges.into_iter().collect()
    }
}

fn top_module(file: &str) -> &str {
    let first = file.split('/').next().unwrap_or(file);
    first.trim_end_matches(".rs")
}

// ---------------------------------------------------------------------------------------------
// The checks.
// ---------------------------------------------------------------------------------------------

/// Every import that breaks the layer order, one line each.
fn layer_violations(krate: &Crate) -> Vec<String> {
    let mut out = Vec::new();
    let mut seen_unknown = BTreeSet::new();
    for e in krate.edges() {
        let (from, to) = (top_module(&e.from), top_module(&e.to));
        if from == "lib" || to == "lib" || from == to {
            continue;
        }
        let (Some((lf, nf)), Some((lt, nt))) = (layer_of(from), layer_of(to)) else {
            for m in [from, to] {
                if layer_of(m).is_none() && seen_unknown.insert(m.to_string()) {
                    out.push(format!(
                        "src/{m}: module `{m}` has no layer; add it to LAYERS"
                    ));
                }
            }
            continue;
        };
        let problem = if lt > lf {
            Some(format!("imports the higher layer {lt} ({nt})"))
        } else if lt == lf && !same_layer_allowed(from, to, lf) {
            Some(format!(
                "imports `{to}` of its own layer {lf} ({nf}); allowed: {}",
                allowed_same_layer(from, lf)
            ))
        } else {
            None
        };
        if let Some(problem) = problem {
            out.push(format!(
                "src/{}:{}: `{from}` (layer {lf}, {nf}) {problem}: `{}` -> src/{}",
                e.from, e.line, e.written, e.to
            ));
        }
    }
    out
}

fn allowed_same_layer(from: &str, layer: u8) -> String {
    let allowed: Vec<&str> = LAYERS
        .iter()
        .filter(|(m, l, _)| *l == layer && *m != from && same_layer_allowed(from, m, layer))
        .map(|(m, _, _)| *m)
        .collect();
    if allowed.is_empty() {
        "none".into()
    } else {
        allowed.join(", ")
    }
}

/// The strongly connected components of size > 1 of a graph (Tarjan), each sorted.
fn cycles(nodes: &BTreeSet<String>, edges: &[(String, String)]) -> Vec<Vec<String>> {
    let index_of: HashMap<&str, usize> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect();
    let names: Vec<&String> = nodes.iter().collect();
    let mut adj = vec![Vec::new(); nodes.len()];
    for (a, b) in edges {
        adj[index_of[a.as_str()]].push(index_of[b.as_str()]);
    }
    struct Tarjan<'a> {
        adj: &'a [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    impl Tarjan<'_> {
        fn visit(&mut self, v: usize) {
            self.index[v] = Some(self.next);
            self.low[v] = self.next;
            self.next += 1;
            self.stack.push(v);
            self.on_stack[v] = true;
            for &w in &self.adj[v].clone() {
                match self.index[w] {
                    None => {
                        self.visit(w);
                        self.low[v] = self.low[v].min(self.low[w]);
                    }
                    Some(iw) if self.on_stack[w] => self.low[v] = self.low[v].min(iw),
                    _ => {}
                }
            }
            if Some(self.low[v]) == self.index[v] {
                let mut component = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    self.out.push(component);
                }
            }
        }
    }
    let n = nodes.len();
    let mut t = Tarjan {
        adj: &adj,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if t.index[v].is_none() {
            t.visit(v);
        }
    }
    let mut out: Vec<Vec<String>> = t
        .out
        .into_iter()
        .map(|c| {
            let mut c: Vec<String> = c.into_iter().map(|i| names[i].clone()).collect();
            c.sort();
            c
        })
        .collect();
    out.sort();
    out
}

/// Each cycle between top-level modules, with the imports that close it.
fn module_cycles(krate: &Crate) -> Vec<String> {
    let edges: Vec<Edge> = krate
        .edges()
        .into_iter()
        .filter(|e| {
            let (a, b) = (top_module(&e.from), top_module(&e.to));
            a != b && a != "lib" && b != "lib"
        })
        .collect();
    let pairs: Vec<(String, String)> = edges
        .iter()
        .map(|e| {
            (
                top_module(&e.from).to_string(),
                top_module(&e.to).to_string(),
            )
        })
        .collect();
    let nodes: BTreeSet<String> = pairs
        .iter()
        .flat_map(|(a, b)| [a.clone(), b.clone()])
        .collect();
    cycles(&nodes, &pairs)
        .into_iter()
        .map(|component| {
            // One line per pair of modules (its first import and how many more): a cycle of
            // modules is closed by dozens of imports.
            let mut pairs: BTreeMap<(&str, &str), (&Edge, usize)> = BTreeMap::new();
            for e in &edges {
                let (a, b) = (top_module(&e.from), top_module(&e.to));
                if component.iter().any(|m| m == a) && component.iter().any(|m| m == b) {
                    pairs.entry((a, b)).or_insert((e, 0)).1 += 1;
                }
            }
            let inside: Vec<String> = pairs
                .iter()
                .map(|((a, b), (e, n))| {
                    format!(
                        "  {a} -> {b}: src/{}:{}: `{}` (and {} more)",
                        e.from,
                        e.line,
                        e.written,
                        n - 1
                    )
                })
                .collect();
            format!(
                "cycle between modules {}:\n{}",
                component.join(" <-> "),
                inside.join("\n")
            )
        })
        .collect()
}

/// Each cycle between files of one folder tree (edges across top-level modules are the layer
/// check's business), with the imports that close it.
fn file_cycles(krate: &Crate) -> Vec<String> {
    let edges: Vec<Edge> = krate
        .edges()
        .into_iter()
        .filter(|e| {
            top_module(&e.from) == top_module(&e.to)
                && !krate.files[&e.from].facade
                && !krate.files[&e.to].facade
        })
        .collect();
    let pairs: Vec<(String, String)> = edges
        .iter()
        .map(|e| (e.from.clone(), e.to.clone()))
        .collect();
    let nodes: BTreeSet<String> = krate.files.keys().cloned().collect();
    cycles(&nodes, &pairs)
        .into_iter()
        .map(|component| {
            let inside: Vec<String> = edges
                .iter()
                .filter(|e| component.contains(&e.from) && component.contains(&e.to))
                .map(|e| {
                    format!(
                        "  src/{}:{}: `{}` -> src/{}",
                        e.from, e.line, e.written, e.to
                    )
                })
                .collect();
            let files: Vec<String> = component.iter().map(|f| format!("src/{f}")).collect();
            format!(
                "cycle between files {}:\n{}",
                files.join(" <-> "),
                inside.join("\n")
            )
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The crate itself.
// ---------------------------------------------------------------------------------------------

fn read_sources(dir: &Path, root: &Path, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .expect("read src")
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            read_sources(&path, root, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            out.push((rel, fs::read_to_string(&path).expect("read source")));
        }
    }
}

fn this_crate() -> Crate {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut sources = Vec::new();
    read_sources(&src, &src, &mut sources);
    assert!(
        sources.len() > 20,
        "found only {} source files under {src:?}",
        sources.len()
    );
    Crate::new(&sources)
}

#[test]
fn no_module_imports_a_higher_layer_or_a_forbidden_sibling() {
    let report = layer_violations(&this_crate());
    assert!(
        report.is_empty(),
        "layer violations:\n{}",
        report.join("\n")
    );
}

#[test]
fn top_level_modules_form_no_cycle() {
    let report = module_cycles(&this_crate());
    assert!(report.is_empty(), "{}", report.join("\n"));
}

#[test]
fn files_inside_a_folder_form_no_cycle() {
    let report = file_cycles(&this_crate());
    assert!(report.is_empty(), "{}", report.join("\n"));
}

#[test]
fn the_scanner_sees_the_crate_s_real_imports() {
    // A sanity check that the checker reads this crate at all: climb's movegen imports the deck.
    let krate = this_crate();
    let edges = krate.edges();
    assert!(
        edges
            .iter()
            .any(|e| e.from == "climb/movegen/mod.rs" && e.to.starts_with("climb/deck")),
        "no edge climb/movegen -> climb/deck found among {} edges",
        edges.len()
    );
    assert!(edges
        .iter()
        .any(|e| e.from.starts_with("py/") && e.to.starts_with("head/")));
}

// ---------------------------------------------------------------------------------------------
// Game names: a game is named only in its own folder, its binding file and the two registries.
// ---------------------------------------------------------------------------------------------

/// The files besides a game's own folder (`src/<game>/`) and binding file (`src/py/<game>.rs`)
/// that may name every game: the game lists of the core and of the binding.
const REGISTRIES: &[&str] = &["games.rs", "py/games/mod.rs"];

/// How a game's items are named: its module capitalised (`Head…`, `Climb…`, and the binding's
/// `PyHead…`) and its module path (`crate::head`, `panda_core::head`, `super::head`).
fn names_game(tokens: &[Token], i: usize, game: &str) -> bool {
    let t = tokens[i].text.as_str();
    let mut prefix: Vec<char> = game.chars().collect();
    prefix[0] = prefix[0].to_ascii_uppercase();
    let prefix: String = prefix.into_iter().collect();
    let typed = |t: &str| {
        t.strip_prefix(&prefix)
            .is_some_and(|rest| rest.chars().next().is_some_and(|c| c.is_ascii_uppercase()))
    };
    if typed(t) || t.strip_prefix("Py").is_some_and(typed) {
        return true;
    }
    // A path to the game's module: `<root> :: game`.
    t == game
        && i >= 2
        && tokens[i - 1].text == "::"
        && matches!(
            tokens[i - 2].text.as_str(),
            "crate" | "$crate" | "panda_core" | "super"
        )
}

/// Every place a file outside a game's own files names the game: `file:line: name`. Comments
/// and string literals are not names; test code is (a generic module's test names no game).
fn game_name_violations(sources: &[(String, String)]) -> Vec<String> {
    let games = games();
    assert!(games.len() >= 2, "games found: {games:?}");
    let mut report = Vec::new();
    for (path, text) in sources {
        if REGISTRIES.contains(&path.as_str()) {
            continue;
        }
        let tokens = tokenize(&blank_non_code(text));
        for game in &games {
            let own =
                path.starts_with(&format!("{game}/")) || *path == format!("py/games/{game}.rs");
            if own {
                continue;
            }
            for i in 0..tokens.len() {
                if names_game(&tokens, i, game) {
                    report.push(format!(
                        "src/{path}:{}: `{}` names the game `{game}`",
                        tokens[i].line, tokens[i].text
                    ));
                }
            }
        }
    }
    report
}

#[test]
fn a_game_is_named_only_in_its_own_files_and_the_registries() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut sources = Vec::new();
    read_sources(&src, &src, &mut sources);
    let report = game_name_violations(&sources);
    assert!(
        report.is_empty(),
        "game names outside the game's own files and the registries (src/games.rs, \
         src/py/games/mod.rs):\n{}",
        report.join("\n")
    );
}

#[test]
fn the_name_check_finds_game_names_in_code_and_not_in_comments() {
    let files = [
        (
            "sim.rs",
            "// HeadState in a comment\nuse crate::head::HeadState;\nfn f(_: &str) {}\n",
        ),
        ("vecenv/mod.rs", "fn g() { let s = \"ClimbGame\"; }\n"),
        ("py/vecenv.rs", "fn h(_: PyClimbGame) {}\n"),
        (
            "bots/seat.rs",
            "use super::super::climb;\nuse crate::climb::Move;\n",
        ),
        ("head/state.rs", "pub struct HeadState;\n"),
        (
            "py/games/head.rs",
            "pub struct PyHeadGame(crate::head::HeadGame);\n",
        ),
        ("games.rs", "impl BotGame for crate::climb::ClimbState {}\n"),
    ];
    let sources: Vec<(String, String)> = files
        .iter()
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .collect();
    let report = game_name_violations(&sources);
    assert_eq!(
        report,
        [
            "src/sim.rs:2: `head` names the game `head`",
            "src/sim.rs:2: `HeadState` names the game `head`",
            "src/py/vecenv.rs:1: `PyClimbGame` names the game `climb`",
            "src/bots/seat.rs:1: `climb` names the game `climb`",
            "src/bots/seat.rs:2: `climb` names the game `climb`",
        ]
    );
}

// ---------------------------------------------------------------------------------------------
// Self-tests: the checker reports what it must.
// ---------------------------------------------------------------------------------------------

fn fake(files: &[(&str, &str)]) -> Crate {
    let sources: Vec<(String, String)> = files
        .iter()
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .collect();
    Crate::new(&sources)
}

const LIB: (&str, &str) = (
    "lib.rs",
    "pub mod bots; pub mod climb; pub mod head; pub mod rng; pub mod search; pub mod py;",
);

#[test]
fn an_upward_import_is_reported_with_file_line_and_edge() {
    let krate = fake(&[
        LIB,
        ("climb/mod.rs", "pub mod sim;\npub mod state;\n"),
        ("climb/state.rs", "pub struct ClimbState;\n"),
        (
            "climb/sim.rs",
            "use super::state::ClimbState;\n\nuse crate::bots::{Bot, other};\n",
        ),
        ("bots/mod.rs", "pub struct Bot;\npub fn other() {}\n"),
    ]);
    let report = layer_violations(&krate);
    assert_eq!(report.len(), 2, "{report:?}");
    assert!(report[0]
        .starts_with("src/climb/sim.rs:3: `climb` (layer 1, games) imports the higher layer 2"));
    assert!(
        report[0].ends_with("`crate::bots::Bot` -> src/bots/mod.rs"),
        "{}",
        report[0]
    );
    assert!(
        report[1].ends_with("`crate::bots::other` -> src/bots/mod.rs"),
        "{}",
        report[1]
    );
}

#[test]
fn upward_paths_in_code_grouped_trees_and_super_chains_are_found() {
    let krate = fake(&[
        LIB,
        ("climb/mod.rs", "pub mod movegen;\n"),
        ("climb/movegen/mod.rs", "pub mod deep;\n"),
        (
            "climb/movegen/deep.rs",
            "use crate::{rng::R, search::{ismcts::Ismcts}};\n\
             fn f() { let _ = super::super::super::py::bind(); }\n",
        ),
        ("rng.rs", "pub struct R;"),
        ("search/mod.rs", "pub mod ismcts;"),
        ("search/ismcts.rs", "pub struct Ismcts;"),
        ("py/mod.rs", "pub fn bind() {}"),
    ]);
    let report = layer_violations(&krate);
    assert_eq!(report.len(), 2, "{report:?}");
    assert!(
        report[0].contains("src/climb/movegen/deep.rs:1:")
            && report[0].contains("search/ismcts.rs")
    );
    assert!(report[1].contains("src/climb/movegen/deep.rs:2:") && report[1].contains("py/mod.rs"));
}

#[test]
fn games_may_not_import_each_other_and_consumers_only_one_way() {
    let krate = fake(&[
        LIB,
        ("head/mod.rs", "use crate::climb::Deck;\npub struct Head;\n"),
        ("climb/mod.rs", "pub struct Deck;\n"),
        (
            "bots/mod.rs",
            "pub use crate::search::Search;\npub struct Bot;\n",
        ),
        (
            "search/mod.rs",
            "use crate::bots::Bot;\npub struct Search;\n",
        ),
    ]);
    let report = layer_violations(&krate);
    assert_eq!(report.len(), 2, "{report:?}");
    assert!(report
        .iter()
        .any(|r| r.starts_with("src/head/mod.rs:1: `head`") && r.contains("allowed: none")));
    assert!(report
        .iter()
        .any(|r| r.starts_with("src/search/mod.rs:1: `search`")));
    let cycles = module_cycles(&krate);
    assert_eq!(cycles.len(), 1, "{cycles:?}");
    assert!(
        cycles[0].starts_with("cycle between modules bots <-> search"),
        "{}",
        cycles[0]
    );
}

#[test]
fn test_code_comments_and_strings_are_not_imports() {
    let krate = fake(&[
        LIB,
        (
            "climb/mod.rs",
            "//! See [`crate::bots::Bot`].\n\
             /* use crate::bots::Bot; */\n\
             const S: &str = \"crate::bots::Bot\";\n\
             const R: &str = r#\"use crate::bots::Bot;\"#;\n\
             fn f<'a>(x: &'a str) -> char { 'x' }\n\
             fn g() -> [char; 4] { ['\\'', '{', '\\\\', '\\u{7b}'] }\n\
             fn h() -> u8 { b'}' }\n\
             #[cfg(test)]\n\
             mod tests {\n    use crate::bots::Bot;\n    fn g() { crate::bots::other(); }\n}\n\
             pub struct Deck;\n",
        ),
        ("bots/mod.rs", "pub struct Bot;\npub fn other() {}\n"),
    ]);
    assert_eq!(layer_violations(&krate), Vec::<String>::new());
}

#[test]
fn a_cycle_between_two_files_of_a_folder_is_reported() {
    let krate = fake(&[
        LIB,
        (
            "climb/mod.rs",
            "pub mod combo;\npub mod deck;\npub mod cards;\n",
        ),
        ("climb/cards.rs", "pub struct CardSet;\n"),
        (
            "climb/combo.rs",
            "use super::cards::CardSet;\nuse super::deck::{lane, Deck};\npub fn shape() {}\n",
        ),
        (
            "climb/deck.rs",
            "pub struct Deck;\npub fn lane() { super::combo::shape(); }\n",
        ),
    ]);
    let report = file_cycles(&krate);
    assert_eq!(report.len(), 1, "{report:?}");
    assert!(report[0].starts_with("cycle between files src/climb/combo.rs <-> src/climb/deck.rs"));
    assert!(report[0].contains("src/climb/combo.rs:2: `super::deck::lane` -> src/climb/deck.rs"));
    assert!(report[0].contains("src/climb/deck.rs:2: `super::combo::shape` -> src/climb/combo.rs"));
}

#[test]
fn a_three_file_cycle_through_the_facade_and_a_child_module_path_is_reported() {
    let krate = fake(&[
        LIB,
        (
            "climb/mod.rs",
            "pub mod a;\npub mod b;\npub mod c;\npub use a::A;\npub use c::{C as Renamed};\n",
        ),
        ("climb/a.rs", "use super::b::B;\npub struct A;\n"),
        (
            "climb/b.rs",
            "pub struct B;\nfn f() -> super::Renamed { todo!() }\n",
        ),
        ("climb/c.rs", "use crate::climb::A;\npub struct C;\n"),
    ]);
    let report = file_cycles(&krate);
    assert_eq!(report.len(), 1, "{report:?}");
    assert!(report[0]
        .starts_with("cycle between files src/climb/a.rs <-> src/climb/b.rs <-> src/climb/c.rs"));
}

#[test]
fn a_shared_item_moved_below_both_files_leaves_no_cycle() {
    let krate = fake(&[
        LIB,
        (
            "climb/mod.rs",
            "pub mod a;\npub mod b;\npub mod shared;\npub use a::A;\n",
        ),
        ("climb/shared.rs", "pub struct S;\n"),
        ("climb/a.rs", "use super::shared::S;\npub struct A;\n"),
        // b re-exports the shared item so the old path b::S keeps working.
        (
            "climb/b.rs",
            "pub use super::shared::S;\nuse super::A;\npub struct B;\n",
        ),
        ("climb/c.rs", "use super::b::S;\n"),
    ]);
    assert_eq!(file_cycles(&krate), Vec::<String>::new());
}

#[test]
fn a_child_calling_its_parent_s_own_code_is_a_cycle() {
    let krate = fake(&[
        LIB,
        ("climb/mod.rs", "pub mod movegen;\n"),
        (
            "climb/movegen/mod.rs",
            "mod groups;\npub fn helper() {}\npub fn gen() { groups::run(); }\n",
        ),
        (
            "climb/movegen/groups.rs",
            "use super::helper;\npub fn run() { helper(); }\n",
        ),
    ]);
    let report = file_cycles(&krate);
    assert_eq!(report.len(), 1, "{report:?}");
    assert!(report[0]
        .contains("src/climb/movegen/mod.rs:3: `groups::run` -> src/climb/movegen/groups.rs"));
}

#[test]
fn a_module_without_a_layer_is_reported() {
    let krate = fake(&[
        ("lib.rs", "pub mod arena; pub mod rng;"),
        ("arena.rs", "use crate::rng::R;"),
        ("rng.rs", "pub struct R;"),
    ]);
    let report = layer_violations(&krate);
    assert_eq!(
        report,
        vec!["src/arena: module `arena` has no layer; add it to LAYERS".to_string()]
    );
}

#[test]
fn char_literals_and_lifetimes_are_told_apart() {
    // No spaces: a literal read one character short would pair its last quote with the next.
    let code = "fn g<'a>(x: &'a u8) -> [char; 4] { ['\\'','{','\\\\','\\u{7b}'] }";
    let blanked: String = blank_non_code(code).into_iter().collect();
    assert_eq!(blanked.matches('{').count(), 1, "{blanked}");
    assert_eq!(blanked.matches('}').count(), 1, "{blanked}");
    assert!(blanked.contains("<'a>(x: &'a u8)"), "{blanked}");
}
