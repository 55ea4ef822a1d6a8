//! Passing an image to the manager: an entry in the `env` list of the
//! `manager` container in `config/manager/manager.yaml`.
//!
//! The file may come from this tool or from kubebuilder, and its container
//! may start with `- name: manager` or hold `name: manager` further down,
//! so the container is found by that line and its keys by their indentation.
//! An existing `env` list gets the entry at its top; without one, the list
//! is added above the container's `ports` (where the namespaced manager's
//! `env` stands), or below its name. Every other line stays as it was.

use anyhow::{Result, bail};

/// The manager container's keys: where they start and end in the file's lines.
struct Container {
    /// Index of the container's first line (its list item's dash).
    start: usize,
    /// Index of the line holding `name: manager`.
    name_line: usize,
    /// Column of the container's keys.
    indent: usize,
    /// Index one past the container's last line.
    end: usize,
}

/// `text` with `name=value` in the manager container's environment; the
/// text unchanged when the variable is set there already.
pub fn with_env_var(text: &str, name: &str, value: &str) -> Result<String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let Some(container) = manager_container(&lines) else {
        bail!(
            "config/manager/manager.yaml has no container named manager, so the image cannot be passed to it; add `{name}` to the manager's environment by hand"
        );
    };
    let keys = container.start..container.end;
    let key_line = |key: &str| {
        keys.clone()
            .find(|&i| indent_of(lines[i]) == container.indent && key_of(lines[i]) == Some(key))
    };
    let pad = " ".repeat(container.indent);
    let (at, block) = match key_line("env") {
        Some(env) => {
            let list_end = (env + 1..container.end)
                .find(|&i| ends_list(lines[i], container.indent))
                .unwrap_or(container.end);
            if (env + 1..list_end).any(|i| names_variable(lines[i], name)) {
                return Ok(text.to_string());
            }
            let item_pad = lines
                .get(env + 1)
                .filter(|line| line.trim_start().starts_with("- "))
                .map_or(pad.clone(), |line| " ".repeat(indent_of(line)));
            (env + 1, env_item(&item_pad, name, value))
        }
        None => {
            let at = key_line("ports").unwrap_or(container.name_line + 1);
            let block = format!("{pad}env:\n{}", env_item(&pad, name, value));
            (at, block)
        }
    };
    let mut out: String = lines[..at].concat();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&block);
    out.push_str(&lines[at..].concat());
    Ok(out)
}

/// One list item `- name: <name>` / `value: <value>`, its dash at `pad`.
fn env_item(pad: &str, name: &str, value: &str) -> String {
    format!("{pad}- name: {name}\n{pad}  value: {value}\n")
}

/// Finds the container whose `name` is `manager`.
fn manager_container(lines: &[&str]) -> Option<Container> {
    let name_line = lines.iter().position(|line| {
        let trimmed = line.trim();
        let item = trimmed.strip_prefix("- ").unwrap_or(trimmed);
        item == "name: manager"
    })?;
    let line = lines[name_line];
    let dash = line.trim_start().starts_with("- ");
    let indent = indent_of(line) + if dash { 2 } else { 0 };
    // The container's first line is the list item's dash, at most one line
    // up from `name:` when that line is not the dash itself.
    let start = if dash {
        name_line
    } else {
        (0..name_line)
            .rev()
            .find(|&i| lines[i].trim_start().starts_with("- ") && indent_of(lines[i]) + 2 == indent)
            .unwrap_or(name_line)
    };
    let end = (start + 1..lines.len())
        .find(|&i| {
            let blank = lines[i].trim().is_empty() || lines[i].trim_start().starts_with('#');
            !blank && indent_of(lines[i]) < indent
        })
        .unwrap_or(lines.len());
    Some(Container {
        start,
        name_line,
        indent,
        end,
    })
}

/// Whether `line` follows the `env` list of a container whose keys are at
/// column `indent`: the container's next key.
fn ends_list(line: &str, indent: usize) -> bool {
    let text = line.trim_start();
    let is_content = !text.is_empty() && !text.starts_with('#');
    is_content
        && indent_of(line) <= indent
        && !(indent_of(line) == indent && text.starts_with("- "))
}

/// Whether `line` is the list item that sets the variable `name`.
fn names_variable(line: &str, name: &str) -> bool {
    line.trim_start()
        .strip_prefix("- ")
        .is_some_and(|item| item.trim() == format!("name: {name}"))
}

/// The key a `key:` line opens, if it is one.
fn key_of(line: &str) -> Option<&str> {
    let trimmed = line.trim();
    let (key, rest) = trimmed.split_once(':')?;
    (rest.trim().is_empty() || rest.starts_with(' ')).then_some(key)
}

/// Leading spaces of `line`.
fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

#[cfg(test)]
mod tests {
    use super::*;

    const OWN: &str = "\
      containers:
      - name: manager
        image: controller:latest
        args:
          - --leader-elect
        ports:
        - name: health
          containerPort: 8081
      volumes: []
";

    #[test]
    fn a_list_is_added_above_ports_and_grows_at_its_top() {
        let once = with_env_var(OWN, "MEMCACHED_IMAGE", "memcached:1.6").unwrap();
        assert_eq!(
            once,
            OWN.replace(
                "        ports:\n",
                "        env:\n        - name: MEMCACHED_IMAGE\n          value: memcached:1.6\n        ports:\n"
            )
        );
        let twice = with_env_var(&once, "BUSYBOX_IMAGE", "busybox:1.36").unwrap();
        assert!(twice.contains(
            "        env:\n        - name: BUSYBOX_IMAGE\n          value: busybox:1.36\n        - name: MEMCACHED_IMAGE\n"
        ));
        assert_eq!(
            with_env_var(&twice, "MEMCACHED_IMAGE", "other:1").unwrap(),
            twice
        );
    }

    #[test]
    fn kubebuilders_layout_with_name_below_the_dash_is_found() {
        let text = "\
      containers:
      - command:
        - /manager
        image: controller:latest
        name: manager
        ports:
        - containerPort: 8081
";
        let out = with_env_var(text, "X_IMAGE", "x:1").unwrap();
        assert!(out.contains(
            "        name: manager\n        env:\n        - name: X_IMAGE\n          value: x:1\n        ports:\n"
        ), "{out}");
    }

    #[test]
    fn the_namespaced_managers_list_is_reused() {
        let text = OWN.replace(
            "        ports:\n",
            "        env:\n        - name: WATCH_NAMESPACE\n          valueFrom:\n            fieldRef:\n              fieldPath: metadata.namespace\n        ports:\n",
        );
        let out = with_env_var(&text, "X_IMAGE", "x:1").unwrap();
        assert_eq!(out.matches("env:").count(), 1);
        assert!(out.contains("        env:\n        - name: X_IMAGE\n          value: x:1\n        - name: WATCH_NAMESPACE\n"));
    }

    #[test]
    fn a_file_without_the_manager_is_refused() {
        let err = with_env_var("kind: Foo\n", "X_IMAGE", "x").unwrap_err();
        assert!(
            err.to_string().contains("no container named manager"),
            "{err}"
        );
    }
}
