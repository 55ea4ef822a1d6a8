//! The environment of the manager: items of the `env` list of the
//! `manager` container in `config/manager/manager.yaml`, added (an image
//! for deploy-image/v1-alpha, `WATCH_NAMESPACE` for a namespaced manager)
//! or removed.
//!
//! The file may come from this tool or from kubebuilder, and its container
//! may start with `- name: manager` or hold `name: manager` further down,
//! so the container is found by that line and its keys by their indentation.
//! An existing `env` list gets a new item at its top; without one, the list
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

/// The container's `env` list: the key's line and one past its last item.
struct EnvList {
    key_line: usize,
    end: usize,
}

impl Container {
    /// The line of the container's key `key`, if it has one.
    fn key_line(&self, lines: &[&str], key: &str) -> Option<usize> {
        (self.start..self.end)
            .find(|&i| indent_of(lines[i]) == self.indent && key_of(lines[i]) == Some(key))
    }

    /// The container's `env` list, if it has one.
    fn env_list(&self, lines: &[&str]) -> Option<EnvList> {
        let key_line = self.key_line(lines, "env")?;
        let end = (key_line + 1..self.end)
            .find(|&i| ends_list(lines[i], self.indent))
            .unwrap_or(self.end);
        Some(EnvList { key_line, end })
    }
}

/// `text` with `name=value` in the manager container's environment; the
/// text unchanged when the variable is set there already.
pub fn with_env_var(text: &str, name: &str, value: &str) -> Result<String> {
    with_env_item(text, name, &[&format!("value: {value}")])
}

/// `text` with the variable `name` in the manager container's environment,
/// `body` being the item's lines below its name (relative to its keys);
/// the text unchanged when the variable is there already.
pub fn with_env_item(text: &str, name: &str, body: &[&str]) -> Result<String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let container = find_manager(&lines, name)?;
    let pad = " ".repeat(container.indent);
    let (at, block) = match container.env_list(&lines) {
        Some(list) => {
            if item_range(&lines, &list, name).is_some() {
                return Ok(text.to_string());
            }
            let item_pad = lines
                .get(list.key_line + 1)
                .filter(|line| line.trim_start().starts_with("- "))
                .map_or(pad.clone(), |line| " ".repeat(indent_of(line)));
            (list.key_line + 1, env_item(&item_pad, name, body))
        }
        None => {
            let at = container
                .key_line(&lines, "ports")
                .unwrap_or(container.name_line + 1);
            let block = format!("{pad}env:\n{}", env_item(&pad, name, body));
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

/// `text` without the variable `name` in the manager container's
/// environment. A list left empty goes too, with a comment line right above
/// its key.
pub fn without_env_item(text: &str, name: &str) -> Result<String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let container = find_manager(&lines, name)?;
    let Some(list) = container.env_list(&lines) else {
        return Ok(text.to_string());
    };
    let Some(item) = item_range(&lines, &list, name) else {
        return Ok(text.to_string());
    };
    let only_item = item == (list.key_line + 1..list.end);
    let mut removed = if only_item {
        list.key_line..list.end
    } else {
        item
    };
    let comment_above = removed.start > 0 && lines[removed.start - 1].trim_start().starts_with('#');
    if only_item && comment_above {
        removed.start -= 1;
    }
    Ok([&lines[..removed.start], &lines[removed.end..]]
        .concat()
        .concat())
}

/// The manager container, or an error naming the variable that cannot be set.
fn find_manager(lines: &[&str], name: &str) -> Result<Container> {
    match manager_container(lines) {
        Some(container) => Ok(container),
        None => bail!(
            "config/manager/manager.yaml has no container named manager, so its environment cannot be changed; set `{name}` in the manager's environment by hand"
        ),
    }
}

/// The lines of the list item that sets `name`, if the list has one.
fn item_range(lines: &[&str], list: &EnvList, name: &str) -> Option<std::ops::Range<usize>> {
    let start = (list.key_line + 1..list.end).find(|&i| names_variable(lines[i], name))?;
    let dash = indent_of(lines[start]);
    let end = (start + 1..list.end)
        .find(|&i| {
            let text = lines[i].trim_start();
            !text.is_empty() && indent_of(lines[i]) <= dash
        })
        .unwrap_or(list.end);
    Some(start..end)
}

/// One list item `- name: <name>` and its `body`, its dash at `pad`.
fn env_item(pad: &str, name: &str, body: &[&str]) -> String {
    let mut item = format!("{pad}- name: {name}\n");
    for line in body {
        item.push_str(&format!("{pad}  {line}\n"));
    }
    item
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

    #[test]
    fn removing_an_item_keeps_the_others_and_drops_an_empty_list() {
        let watch = [
            "valueFrom:",
            "  fieldRef:",
            "    fieldPath: metadata.namespace",
        ];
        let with_image = with_env_var(OWN, "X_IMAGE", "x:1").unwrap();
        let both = with_env_item(&with_image, "WATCH_NAMESPACE", &watch).unwrap();
        assert!(both.contains("        env:\n        - name: WATCH_NAMESPACE\n          valueFrom:\n            fieldRef:\n              fieldPath: metadata.namespace\n        - name: X_IMAGE\n"), "{both}");
        assert_eq!(
            without_env_item(&both, "WATCH_NAMESPACE").unwrap(),
            with_image
        );
        // The last item takes the list with it, and a comment right above it.
        let only = with_env_item(OWN, "WATCH_NAMESPACE", &watch).unwrap();
        let commented = only.replace(
            "        env:\n",
            "        # Watched namespaces.\n        env:\n",
        );
        assert_eq!(
            without_env_item(&commented, "WATCH_NAMESPACE").unwrap(),
            OWN
        );
        assert_eq!(without_env_item(OWN, "WATCH_NAMESPACE").unwrap(), OWN);
    }
}
