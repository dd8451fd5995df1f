//! `fill` and `select`: putting values into form controls the way a person does.
//!
//! Why typing goes through `Input.insertText` after focusing and selecting the old value: it is
//! a trusted edit, so the page sees `beforeinput`/`input` events exactly as from a keyboard, and
//! frameworks that keep their own copy of the value (React's controlled inputs listen to
//! `input`) update their state. Setting `.value` from script would leave them stale. Fields a
//! keyboard cannot type into as text (date, time, colour, range pickers) are set through the
//! native value setter plus `input` and `change` events, and checked afterwards: a value the
//! browser rejects reads back empty, which is reported with the format the field wants.
//!
//! Native `<select>` popups are drawn by the browser, not the page, and cannot be clicked in a
//! headless browser, so a native select is set by script (`selectedIndex`, then `input` and
//! `change`). Custom list boxes and comboboxes (`role=listbox|combobox` with `role=option`
//! children) are real page elements: they are opened and their option clicked with trusted
//! clicks, like a person would.
//!
//! Every fill reads the value back from the element and reports it; a password field's value is
//! never echoed.

use std::time::Duration;

use serde_json::{Map, Value};

use super::pointer::{self, check_state, disabled_error, element_state, scroll_into_view, Button};
use super::remote::{call, call_node, Arg, LiveNode};
use super::{keyboard, ActionContext};
use crate::cdp::dom::FocusParams;
use crate::cdp::input::InsertTextParams;
use crate::error::{Error, ErrorCode, Result};

/// A `<label>` stands for its control.
const CONTROL_FN: &str =
    r#"function(){return (this.localName==='label'&&this.control)?this.control:this;}"#;

const CLASSIFY_FN: &str = r#"function(){
  const e=this,tag=e.localName,r={tag,kind:'none',type:null,readOnly:false,checked:null};
  if(tag==='input'){
    r.type=e.type;r.readOnly=e.readOnly;
    if(e.type==='checkbox'||e.type==='radio'){r.kind='check';r.checked=e.checked;}
    else if(['date','time','datetime-local','month','week','color','range'].includes(e.type))r.kind='set';
    else if(['button','submit','reset','image','file','hidden'].includes(e.type))r.kind='none';
    else r.kind='text';
  }else if(tag==='textarea'){r.kind='text';r.readOnly=e.readOnly;}
  else if(tag==='select'){r.kind='select';}
  else if(e.isContentEditable){r.kind='editable';}
  else{
    const role=(e.getAttribute('role')||'').toLowerCase();
    if(['checkbox','switch','radio','menuitemcheckbox','menuitemradio'].includes(role)){r.kind='check';r.checked=e.getAttribute('aria-checked')==='true';}
    else if(role==='combobox'||role==='listbox')r.kind='listbox';
  }
  return r;
}"#;

const FOCUSED_FN: &str = r#"function(){
  const root=this.getRootNode(),a=(root&&root.activeElement)||document.activeElement;
  if(a===this)return true;
  return !!(a&&this.isContentEditable&&(a.contains(this)||this.contains(a)));
}"#;

const SELECT_ALL_FN: &str = r#"function(){
  if(typeof this.select==='function'&&(this.localName==='input'||this.localName==='textarea')){this.select();return;}
  const s=this.ownerDocument.getSelection(),r=this.ownerDocument.createRange();
  r.selectNodeContents(this);s.removeAllRanges();s.addRange(r);
}"#;

const VALUE_FN: &str = r#"function(){
  if(this.localName==='input'||this.localName==='textarea')return this.value;
  return (this.innerText||'').replace(/\n$/,'');
}"#;

const CHECKED_FN: &str = r#"function(){
  if(this.localName==='input')return this.checked;
  return this.getAttribute('aria-checked')==='true';
}"#;

const FIRST_LABEL_FN: &str =
    r#"function(){return (this.labels&&this.labels.length)?this.labels[0]:null;}"#;

const SET_VALUE_FN: &str = r#"function(v){
  const d=Object.getOwnPropertyDescriptor(HTMLInputElement.prototype,'value');
  this.focus();
  if(d&&d.set)d.set.call(this,v);else this.value=v;
  this.dispatchEvent(new Event('input',{bubbles:true}));
  this.dispatchEvent(new Event('change',{bubbles:true}));
  return this.value;
}"#;

/// What `fill` found the element to be.
struct Kind {
    tag: String,
    kind: String,
    input_type: Option<String>,
    read_only: bool,
    checked: Option<bool>,
}

async fn classify(cx: &ActionContext<'_>, node: &LiveNode) -> Result<Kind> {
    let v = call(cx.dom(), &node.object_id, CLASSIFY_FN, &[]).await?;
    let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    Ok(Kind {
        tag: s("tag").unwrap_or_default(),
        kind: s("kind").unwrap_or_default(),
        input_type: s("type"),
        read_only: v.get("readOnly").and_then(Value::as_bool).unwrap_or(false),
        checked: v.get("checked").and_then(Value::as_bool),
    })
}

fn parse_bool(text: &str) -> Option<bool> {
    match text.trim().to_ascii_lowercase().as_str() {
        "true" | "checked" | "on" | "yes" | "1" => Some(true),
        "false" | "unchecked" | "off" | "no" | "0" => Some(false),
        _ => None,
    }
}

/// The format a picker-style input wants, for error messages.
fn format_hint(input_type: &str) -> &'static str {
    match input_type {
        "date" => "YYYY-MM-DD, e.g. 2024-03-15",
        "time" => "HH:MM or HH:MM:SS (24 h), e.g. 14:30",
        "datetime-local" => "YYYY-MM-DDTHH:MM, e.g. 2024-03-15T14:30",
        "month" => "YYYY-MM, e.g. 2024-03",
        "week" => "YYYY-Www, e.g. 2024-W11",
        "color" => "#rrggbb, e.g. #ff8800",
        "range" => "a number within the slider's min and max",
        _ => "the format the field expects",
    }
}

/// Focuses an editable element: `DOM.focus`, then a trusted click if that did not take.
async fn focus(cx: &ActionContext<'_>, node: &LiveNode, label: &str) -> Result<()> {
    scroll_into_view(cx.dom(), node, label).await?;
    let focused = cx
        .dom()
        .send(&FocusParams {
            backend_node_id: Some(node.backend_node_id),
            ..Default::default()
        })
        .await
        .is_ok()
        && call(cx.dom(), &node.object_id, FOCUSED_FN, &[]).await? == Value::Bool(true);
    if !focused {
        pointer::click(cx, node, label, Button::Left, 1).await?;
        if call(cx.dom(), &node.object_id, FOCUSED_FN, &[]).await? != Value::Bool(true) {
            return Err(Error::new(
                ErrorCode::NotInteractable,
                format!("{label} does not take the keyboard focus, so it cannot be typed into"),
            ));
        }
    }
    Ok(())
}

/// Clicks a checkable element; when the control itself cannot be clicked (custom checkboxes
/// hide the real input and draw a label), its label is clicked instead.
async fn toggle(cx: &ActionContext<'_>, node: &LiveNode, label: &str) -> Result<()> {
    let state = element_state(cx.dom(), node).await?;
    if let Some(why) = &state.disabled {
        return Err(disabled_error(label, &state.tag, why));
    }
    match pointer::click(cx, node, label, Button::Left, 1).await {
        Ok(_) => Ok(()),
        Err(e) if matches!(e.code(), ErrorCode::NotInteractable | ErrorCode::Occluded) => {
            match call_node(cx.dom(), &node.object_id, FIRST_LABEL_FN, &[]).await? {
                Some(l) => {
                    let what = format!("the label of {label}");
                    pointer::click(cx, &l, &what, Button::Left, 1)
                        .await
                        .map(|_| ())
                        .map_err(|_| e)
                }
                None => Err(e),
            }
        }
        Err(e) => Err(e),
    }
}

/// `fill`: see the module docs. Writes `value` (or `checked`) into `out`.
pub(crate) async fn fill(
    cx: &ActionContext<'_>,
    node: &LiveNode,
    label: &str,
    text: &str,
    out: &mut Map<String, Value>,
) -> Result<()> {
    let node = call_node(cx.dom(), &node.object_id, CONTROL_FN, &[])
        .await?
        .unwrap_or_else(|| node.clone());
    let kind = classify(cx, &node).await?;
    match kind.kind.as_str() {
        "check" => {
            let Some(want) = parse_bool(text) else {
                return Err(Error::invalid_argument(format!(
                    "{label} is a checkbox or radio button: fill it with \"true\" or \"false\", \
                     not {text:?}"
                )));
            };
            if kind.checked != Some(want) {
                if !want && kind.input_type.as_deref() == Some("radio") {
                    return Err(Error::invalid_argument(format!(
                        "{label} is a radio button: it cannot be unchecked by clicking it; check \
                         another radio button of its group instead"
                    )));
                }
                toggle(cx, &node, label).await?;
            }
            let now = call(cx.dom(), &node.object_id, CHECKED_FN, &[]).await?;
            let now = now.as_bool().unwrap_or(false);
            out.insert("checked".into(), Value::Bool(now));
            if now != want {
                out.insert(
                    "warning".into(),
                    Value::String(
                        "clicking did not change its state; the page may block it — take a \
                         snapshot to see why"
                            .into(),
                    ),
                );
            }
            Ok(())
        }
        "select" | "listbox" => select(cx, &node, label, &[text.to_string()], out).await,
        "text" | "editable" => {
            check_state(cx.dom(), &node, label, true).await?;
            if kind.read_only {
                return Err(Error::new(
                    ErrorCode::NotInteractable,
                    format!(
                        "{label} (<{}>) is read-only; it cannot be typed into",
                        kind.tag
                    ),
                ));
            }
            focus(cx, &node, label).await?;
            call(cx.dom(), &node.object_id, SELECT_ALL_FN, &[]).await?;
            let before = call(cx.dom(), &node.object_id, VALUE_FN, &[]).await?;
            if text.is_empty() {
                if before.as_str().is_some_and(|s| !s.is_empty()) {
                    keyboard::press_key(cx.page, "Delete").await?;
                }
            } else {
                // Typed input goes to the page; Chromium routes it to the focused frame.
                cx.page
                    .send(&InsertTextParams {
                        text: text.to_string(),
                    })
                    .await?;
            }
            let value = call(cx.dom(), &node.object_id, VALUE_FN, &[]).await?;
            let value = value.as_str().unwrap_or("").to_string();
            let secret = kind.input_type.as_deref() == Some("password");
            out.insert(
                "value".into(),
                Value::String(if secret {
                    "********".into()
                } else {
                    value.clone()
                }),
            );
            if value != text {
                out.insert(
                    "warning".into(),
                    Value::String(if secret {
                        "the field does not hold exactly the text sent; it may limit or reformat input".into()
                    } else {
                        "the field does not hold exactly the text sent; it may limit length, \
                         reformat or reject input"
                            .into()
                    }),
                );
            }
            Ok(())
        }
        "set" => {
            check_state(cx.dom(), &node, label, true).await?;
            if kind.read_only {
                return Err(Error::new(
                    ErrorCode::NotInteractable,
                    format!("{label} is read-only; it cannot be changed"),
                ));
            }
            scroll_into_view(cx.dom(), &node, label).await?;
            let v = call(
                cx.dom(),
                &node.object_id,
                SET_VALUE_FN,
                &[Arg::Value(Value::String(text.to_string()))],
            )
            .await?;
            let v = v.as_str().unwrap_or("").to_string();
            let ty = kind.input_type.unwrap_or_default();
            if v.is_empty() && !text.is_empty() {
                return Err(Error::invalid_argument(format!(
                    "{label} is an <input type={ty}> and rejected {text:?}; give the value as {}",
                    format_hint(&ty)
                )));
            }
            out.insert("value".into(), Value::String(v));
            Ok(())
        }
        _ => Err(Error::new(
            ErrorCode::NotInteractable,
            format!(
                "{label} (<{}>) cannot be filled: it is not a text field, text area, \
                 contenteditable, select, checkbox or radio button. Click it, or fill the field \
                 it belongs to",
                kind.tag
            ),
        )),
    }
}

const NATIVE_SELECT_FN: &str = r#"function(wants){
  const norm=s=>(s||'').replace(/\s+/g,' ').trim();
  const opts=[...this.options];
  const off=o=>o.disabled||(o.parentElement&&o.parentElement.localName==='optgroup'&&o.parentElement.disabled);
  const list=()=>opts.map(o=>({text:norm(o.text),value:o.value,disabled:!!off(o)}));
  const pick=[];
  for(const w of wants){
    const n=norm(w),l=n.toLowerCase();
    const o=opts.find(o=>norm(o.text)===n)||opts.find(o=>o.value===w)||opts.find(o=>norm(o.text).toLowerCase()===l)||opts.find(o=>norm(o.label)===n);
    if(!o)return {ok:false,missing:w,options:list()};
    if(off(o))return {ok:false,disabled:w,options:list()};
    pick.push(o);
  }
  if(pick.length>1&&!this.multiple)return {ok:false,single:true,options:list()};
  const before=opts.map(o=>o.selected).join();
  if(this.multiple){for(const o of opts)o.selected=pick.includes(o);}else{this.selectedIndex=pick[0].index;}
  const changed=before!==opts.map(o=>o.selected).join();
  if(changed){this.dispatchEvent(new Event('input',{bubbles:true}));this.dispatchEvent(new Event('change',{bubbles:true}));}
  return {ok:true,changed,value:this.value,selected:opts.filter(o=>o.selected).map(o=>({text:norm(o.text),value:o.value}))};
}"#;

const SELECT_KIND_FN: &str = r#"function(){
  const role=(this.getAttribute('role')||'').toLowerCase();
  if(this.localName==='select')return 'native';
  if(role==='option')return 'option';
  if(role==='combobox'||role==='listbox'||(this.getAttribute('aria-haspopup')||'')==='listbox')return 'custom';
  const inner=this.querySelector('select');
  if(inner)return 'wrapper';
  const c=this.querySelector('[role=combobox],[role=listbox]');
  if(c)return 'wrapper-custom';
  return 'none';
}"#;

const INNER_WIDGET_FN: &str = r#"function(){return this.querySelector('select')||this.querySelector('[role=combobox],[role=listbox]');}"#;

/// Finds the option element matching `want` among the widget's options (`list`: return the
/// visible options' texts instead). `global`: also look at every visible option of the document
/// (list boxes rendered elsewhere, e.g. in a portal at the end of `<body>`).
const FIND_OPTION_FN: &str = r#"function(want,list,global){
  const norm=s=>(s||'').replace(/\s+/g,' ').trim();
  const vis=e=>!e.checkVisibility||e.checkVisibility({visibilityProperty:true});
  const doc=this.ownerDocument;
  const ids=a=>(this.getAttribute(a)||'').split(/\s+/).filter(Boolean).map(i=>doc.getElementById(i)).filter(Boolean);
  const roots=[this,...ids('aria-controls'),...ids('aria-owns')];
  let opts=[];
  for(const r of roots){if((r.getAttribute('role')||'')==='option')opts.push(r);opts.push(...r.querySelectorAll('[role=option]'));}
  opts=opts.filter(vis);
  if(!opts.length&&global)opts=[...doc.querySelectorAll('[role=option]')].filter(vis);
  const text=o=>norm(o.getAttribute('aria-label')||o.textContent);
  if(list)return opts.map(text);
  const n=norm(want),l=n.toLowerCase();
  return opts.find(o=>text(o)===n)||opts.find(o=>text(o).toLowerCase()===l)||opts.find(o=>o.getAttribute('data-value')===want)||null;
}"#;

const WIDGET_VALUE_FN: &str = r#"function(){
  const norm=s=>(s||'').replace(/\s+/g,' ').trim();
  if('value' in this&&typeof this.value==='string'&&(this.localName==='input'||this.localName==='textarea'))return this.value;
  const sel=this.querySelector('[role=option][aria-selected=true]');
  if(sel)return norm(sel.textContent);
  return norm(this.textContent).slice(0,200);
}"#;

fn list_options(options: &Value) -> String {
    let items: Vec<String> = options
        .as_array()
        .map(|a| {
            a.iter()
                .take(40)
                .map(|o| {
                    let text = o.get("text").and_then(Value::as_str).unwrap_or("");
                    let value = o.get("value").and_then(Value::as_str).unwrap_or("");
                    let q = |s: &str| serde_json::to_string(s).unwrap_or_default();
                    let mut s = q(text);
                    if value != text {
                        s.push_str(&format!(" (value {})", q(value)));
                    }
                    if o.get("disabled").and_then(Value::as_bool) == Some(true) {
                        s.push_str(" (disabled)");
                    }
                    s
                })
                .collect()
        })
        .unwrap_or_default();
    let total = options.as_array().map_or(0, Vec::len);
    let mut s = items.join(", ");
    if total > items.len() {
        s.push_str(&format!(", … ({total} options in all)"));
    }
    if s.is_empty() {
        s.push_str("(none)");
    }
    s
}

/// `select`: see the module docs. Writes what was selected into `out`.
pub(crate) async fn select(
    cx: &ActionContext<'_>,
    node: &LiveNode,
    label: &str,
    wants: &[String],
    out: &mut Map<String, Value>,
) -> Result<()> {
    let kind = call(cx.dom(), &node.object_id, SELECT_KIND_FN, &[]).await?;
    let kind = kind.as_str().unwrap_or("none");
    let node = if kind.starts_with("wrapper") {
        call_node(cx.dom(), &node.object_id, INNER_WIDGET_FN, &[])
            .await?
            .unwrap_or_else(|| node.clone())
    } else {
        node.clone()
    };
    match kind {
        "native" | "wrapper" => native_select(cx, &node, label, wants, out).await,
        "custom" | "wrapper-custom" => {
            let [want] = wants else {
                return Err(Error::invalid_argument(format!(
                    "{label} is a custom list: select one option at a time"
                )));
            };
            custom_select(cx, &node, label, want, out).await
        }
        "option" => {
            check_state(cx.dom(), &node, label, true).await?;
            pointer::click(cx, &node, label, Button::Left, 1).await?;
            Ok(())
        }
        _ => Err(Error::new(
            ErrorCode::NotInteractable,
            format!(
                "{label} is not a <select>, list box or combobox; click it, or use the uid of \
                 the list itself"
            ),
        )),
    }
}

async fn native_select(
    cx: &ActionContext<'_>,
    node: &LiveNode,
    label: &str,
    wants: &[String],
    out: &mut Map<String, Value>,
) -> Result<()> {
    check_state(cx.dom(), node, label, true).await?;
    let _ = cx
        .dom()
        .send(&FocusParams {
            backend_node_id: Some(node.backend_node_id),
            ..Default::default()
        })
        .await;
    let wants_json = Value::Array(wants.iter().cloned().map(Value::String).collect());
    let r = call(
        cx.dom(),
        &node.object_id,
        NATIVE_SELECT_FN,
        &[Arg::Value(wants_json)],
    )
    .await?;
    if r.get("ok").and_then(Value::as_bool) != Some(true) {
        let options = list_options(r.get("options").unwrap_or(&Value::Null));
        let q = |k: &str| {
            serde_json::to_string(r.get(k).and_then(Value::as_str).unwrap_or(""))
                .unwrap_or_default()
        };
        if r.get("single").is_some() {
            return Err(Error::invalid_argument(format!(
                "{label} allows only one option; give one. Its options: {options}"
            )));
        }
        if r.get("disabled").is_some() {
            return Err(Error::new(
                ErrorCode::NotInteractable,
                format!(
                    "the option {} of {label} is disabled. Its options: {options}",
                    q("disabled")
                ),
            ));
        }
        return Err(Error::invalid_argument(format!(
            "no option of {label} has the text or value {}; its options are: {options}",
            q("missing")
        )));
    }
    for (from, to) in [
        ("value", "value"),
        ("selected", "options"),
        ("changed", "changed"),
    ] {
        if let Some(v) = r.get(from) {
            out.insert(to.into(), v.clone());
        }
    }
    Ok(())
}

async fn find_option(
    cx: &ActionContext<'_>,
    node: &LiveNode,
    want: &str,
    global: bool,
) -> Result<Option<LiveNode>> {
    call_node(
        cx.dom(),
        &node.object_id,
        FIND_OPTION_FN,
        &[
            Arg::Value(Value::String(want.to_string())),
            Arg::Value(Value::Bool(false)),
            Arg::Value(Value::Bool(global)),
        ],
    )
    .await
}

async fn custom_select(
    cx: &ActionContext<'_>,
    node: &LiveNode,
    label: &str,
    want: &str,
    out: &mut Map<String, Value>,
) -> Result<()> {
    check_state(cx.dom(), node, label, true).await?;
    let mut option = find_option(cx, node, want, false).await?;
    let mut opened = false;
    if option.is_none() {
        // Closed: open it like a person would, then look again (its list may be elsewhere).
        pointer::click(cx, node, label, Button::Left, 1).await?;
        opened = true;
        for _ in 0..4 {
            tokio::time::sleep(Duration::from_millis(75)).await;
            option = find_option(cx, node, want, true).await?;
            if option.is_some() {
                break;
            }
        }
    }
    let Some(option) = option else {
        let texts = call(
            cx.dom(),
            &node.object_id,
            FIND_OPTION_FN,
            &[
                Arg::Value(Value::String(want.to_string())),
                Arg::Value(Value::Bool(true)),
                Arg::Value(Value::Bool(opened)),
            ],
        )
        .await?;
        let list: Vec<String> = texts
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .take(40)
                    .map(|s| serde_json::to_string(s).unwrap_or_default())
                    .collect()
            })
            .unwrap_or_default();
        let shown = if list.is_empty() {
            "no options are visible (the list did not open)".to_string()
        } else {
            format!("the visible options are: {}", list.join(", "))
        };
        return Err(Error::invalid_argument(format!(
            "no option of {label} has the text {}; {shown}",
            serde_json::to_string(want).unwrap_or_default()
        )));
    };
    let option_label = format!(
        "the option {} of {label}",
        serde_json::to_string(want).unwrap_or_default()
    );
    check_state(cx.dom(), &option, &option_label, true).await?;
    pointer::click(cx, &option, &option_label, Button::Left, 1).await?;
    tokio::time::sleep(Duration::from_millis(50)).await;
    out.insert("option".into(), Value::String(want.to_string()));
    if let Ok(v) = call(cx.dom(), &node.object_id, WIDGET_VALUE_FN, &[]).await {
        out.insert("value".into(), v);
    }
    Ok(())
}
