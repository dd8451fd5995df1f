//! `upload`: giving files to a file input.
//!
//! Why `DOM.setFileInputFiles` and not a click: clicking a file input opens the operating
//! system's file chooser, which no agent can drive. Setting the files over CDP is what a person's
//! choice in that dialog amounts to — the input's `files` change and it fires `input` and
//! `change`. Pages usually hide the real `<input type=file>` (`display:none`, `opacity:0`) behind
//! a styled button or label, so the uid may name that button or label: the input it wraps or
//! points to (`for`, `aria-controls`, a label's control, or the only file input near it) is used.

use std::path::Path;

use serde_json::{json, Map, Value};

use super::remote::{call, call_node, LiveNode};
use super::ActionContext;
use crate::cdp::dom::SetFileInputFilesParams;
use crate::error::{Error, ErrorCode, Result};

const FILE_INPUT_FN: &str = r#"function(){
  const isFile=e=>!!e&&e.localName==='input'&&e.type==='file';
  const e=this,doc=e.ownerDocument;
  if(isFile(e))return e;
  if(e.localName==='label'&&isFile(e.control))return e.control;
  const lab=e.closest('label');if(lab&&isFile(lab.control))return lab.control;
  const inner=e.querySelector('input[type=file]');if(inner)return inner;
  for(const a of ['for','aria-controls']){
    for(const id of (e.getAttribute(a)||'').split(/\s+/)){const t=id&&doc.getElementById(id);if(isFile(t))return t;}
  }
  for(let p=e.parentElement,i=0;p&&i<3;p=p.parentElement,i++){
    const all=p.querySelectorAll('input[type=file]');
    if(all.length===1)return all[0];
    if(all.length>1)break;
  }
  return null;
}"#;

const INFO_FN: &str =
    r#"function(){return {multiple:this.multiple,disabled:this.disabled,accept:this.accept||''};}"#;

const FILES_FN: &str = r#"function(){return [...(this.files||[])].map(f=>f.name);}"#;

/// `upload`: see the module docs.
pub(crate) async fn upload(
    cx: &ActionContext<'_>,
    node: &LiveNode,
    label: &str,
    files: &[String],
    out: &mut Map<String, Value>,
) -> Result<()> {
    if files.is_empty() {
        return Err(Error::invalid_argument(
            "\"files\" is empty; give the paths of the files to upload, e.g. [\"report.pdf\"]",
        ));
    }
    let mut paths = Vec::with_capacity(files.len());
    for f in files {
        let path = Path::new(f);
        match std::fs::canonicalize(path) {
            Ok(abs) if abs.is_file() => paths.push(abs.to_string_lossy().into_owned()),
            Ok(_) => {
                return Err(Error::invalid_argument(format!(
                    "{f} is not a regular file; upload takes files, not directories"
                )))
            }
            Err(e) => {
                return Err(Error::invalid_argument(format!(
                    "the file {f} cannot be read ({e}); check the path (relative paths are \
                     taken from the current directory)"
                )))
            }
        }
    }
    let Some(input) = call_node(cx.dom(), &node.object_id, FILE_INPUT_FN, &[]).await? else {
        return Err(Error::new(
            ErrorCode::NotInteractable,
            format!(
                "{label} is not a file input, and no file input belongs to it (inside it, named \
                 by its for/aria-controls, or next to it); use the uid of the upload button or \
                 its file input"
            ),
        ));
    };
    let info = call(cx.dom(), &input.object_id, INFO_FN, &[]).await?;
    if info.get("disabled").and_then(Value::as_bool) == Some(true) {
        return Err(Error::new(
            ErrorCode::NotInteractable,
            format!("the file input of {label} is disabled"),
        ));
    }
    if paths.len() > 1 && info.get("multiple").and_then(Value::as_bool) != Some(true) {
        return Err(Error::invalid_argument(format!(
            "the file input of {label} takes a single file, but {} were given",
            paths.len()
        )));
    }
    cx.dom()
        .send(&SetFileInputFilesParams {
            backend_node_id: Some(input.backend_node_id),
            ..SetFileInputFilesParams::new(paths)
        })
        .await?;
    let names = call(cx.dom(), &input.object_id, FILES_FN, &[]).await?;
    out.insert("files".into(), names);
    if input.backend_node_id != node.backend_node_id {
        let which = match cx.uid_of(input.backend_node_id) {
            Some(uid) => Value::String(uid),
            None => json!(null),
        };
        out.insert("input".into(), which);
    }
    if let Some(accept) = info
        .get("accept")
        .and_then(Value::as_str)
        .filter(|a| !a.is_empty())
    {
        out.insert("accept".into(), Value::String(accept.to_string()));
    }
    Ok(())
}
