//! The fields of one session command (`{"cmd": …, …}`), read with errors that name the command
//! and the field. One reader for every command — the session's own and the actions' — so they
//! all answer bad input the same way.

use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::snapshot::SnapshotOptions;

/// Typed access to the fields of one command object.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CommandFields<'a> {
    cmd: &'a str,
    map: &'a Map<String, Value>,
}

impl<'a> CommandFields<'a> {
    /// The fields of a command object; it must be an object with a string `cmd`.
    pub(crate) fn parse(command: &'a Value) -> Result<Self> {
        let map = command.as_object().ok_or_else(|| {
            Error::invalid_argument("a command is a JSON object like {\"cmd\":\"snapshot\"}")
        })?;
        let cmd = map.get("cmd").and_then(Value::as_str).ok_or_else(|| {
            Error::invalid_argument("the command has no \"cmd\" field (a string)")
        })?;
        Ok(CommandFields { cmd, map })
    }

    /// The command's name (`cmd`).
    pub(crate) fn cmd(&self) -> &'a str {
        self.cmd
    }

    /// The raw value of a field, for fields that take several JSON types.
    pub(crate) fn get(&self, name: &str) -> Option<&'a Value> {
        self.map.get(name)
    }

    /// A number 0 or more that must be present (e.g. a page index).
    pub(crate) fn required_index(&self, name: &str) -> Result<usize> {
        self.map
            .get(name)
            .and_then(Value::as_u64)
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| {
                Error::invalid_argument(format!(
                    "{:?} needs a {name:?} field (a number, 0 or more)",
                    self.cmd
                ))
            })
    }

    pub(crate) fn str(&self, name: &str) -> Result<Option<&'a str>> {
        match self.map.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(Error::invalid_argument(format!(
                "the {name:?} field of {:?} must be a string",
                self.cmd
            ))),
        }
    }

    pub(crate) fn required_str(&self, name: &str, example: &str) -> Result<&'a str> {
        self.str(name)?.ok_or_else(|| {
            Error::invalid_argument(format!(
                "{:?} needs a {name:?} field (a string), e.g. {example}",
                self.cmd
            ))
        })
    }

    pub(crate) fn bool(&self, name: &str) -> Result<Option<bool>> {
        match self.map.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(Error::invalid_argument(format!(
                "the {name:?} field of {:?} must be true or false",
                self.cmd
            ))),
        }
    }

    pub(crate) fn number(&self, name: &str) -> Result<Option<f64>> {
        match self.map.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) => Ok(n.as_f64()),
            Some(_) => Err(Error::invalid_argument(format!(
                "the {name:?} field of {:?} must be a number",
                self.cmd
            ))),
        }
    }

    /// A string, or a list of strings.
    pub(crate) fn strings(&self, name: &str, example: &str) -> Result<Vec<String>> {
        let bad = || {
            Error::invalid_argument(format!(
                "{:?} needs a {name:?} field: a string or a list of strings, e.g. {example}",
                self.cmd
            ))
        };
        match self.map.get(name) {
            Some(Value::String(s)) => Ok(vec![s.clone()]),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| v.as_str().map(str::to_string).ok_or_else(bad))
                .collect(),
            _ => Err(bad()),
        }
    }

    pub(crate) fn snapshot_options(&self) -> Result<SnapshotOptions> {
        SnapshotOptions::from_command(self.map)
    }
}
