//! `type_text`: typing into whatever has the keyboard focus, as a person types after clicking
//! into a field, then optionally pressing a key (`Enter` to submit, `Tab` to move on).
//!
//! Why the focus is checked first: text sent while nothing editable has the focus goes
//! nowhere, or worse, into the page's keyboard shortcuts (a single letter scrolls, opens a
//! menu or deletes on many sites). So the element that has the focus is found — through open
//! shadow roots and into same-origin frames — and typing is refused with `NOT_INTERACTABLE`,
//! naming it, unless it is a text field, a text area or editable content that is enabled and
//! not read-only. Focus inside a frame whose document the page cannot look into (another
//! origin) is trusted: Chromium routes the text there.
//!
//! Why `Input.insertText` and not one key event per character: it types any text (accents,
//! emoji, other scripts) the way an input method does, firing `beforeinput` and `input` as
//! the frameworks that hold a field's state listen for, and costs one round trip whatever the
//! length. A line break is pressed as `Enter`, since that is what it means to a field (a new
//! line in a text area, a submit in a form).

use serde_json::{json, Map, Value};

use super::keyboard::{self, Chord};
use super::remote::{self, call, node_from_object};
use super::{focused, ActionContext};
use crate::cdp::input::InsertTextParams;
use crate::cdp::runtime::EvaluateParams;
use crate::error::{Error, ErrorCode, Result};

/// The element that has the keyboard focus, followed through open shadow roots and
/// same-origin frames (`null`: no element, only the page).
const FOCUSED_JS: &str = "(()=>{let a=document.activeElement;\
    for(let i=0;i<32&&a;i++){\
      while(a.shadowRoot&&a.shadowRoot.activeElement)a=a.shadowRoot.activeElement;\
      if(a.localName!=='iframe'&&a.localName!=='frame')break;\
      let d=null;try{d=a.contentDocument}catch(_){}\
      if(!d||!d.activeElement)break;\
      a=d.activeElement;}\
    return a||null})()";

/// What the focused element is for typing: whether it takes text, why not, whether it is a
/// frame that cannot be looked into, whether it holds a `value`.
const EDITABLE_FN: &str = r#"function(){
  const e=this,tag=e.localName,d=e.ownerDocument;
  const r={tag,id:e.id||'',editable:false,why:null,frame:false,field:false,secret:false};
  if(tag==='iframe'||tag==='frame'){r.frame=true;return r;}
  const top=e===d.body||e===d.documentElement;
  if(tag==='input'){
    const t=(e.getAttribute('type')||'text').toLowerCase();
    if(!['text','search','email','url','tel','password','number'].includes(t)){
      r.why='an <input type="'+t+'">, which does not take typed text';return r;}
    r.field=true;r.secret=t==='password';
  }else if(tag==='textarea'){r.field=true;}
  else if(!(e.isContentEditable||(d.designMode||'').toLowerCase()==='on')){
    r.why=top?'no element has it, only the page itself':'it does not take typed text';return r;}
  try{if(e.matches(':disabled')){r.why='it is disabled';return r;}}catch(_){}
  if(r.field&&e.readOnly){r.why='it is read-only';return r;}
  r.editable=true;return r;
}"#;

/// `type_text`: see the module docs. Writes `typed`, `into`, `value`, `submitKey` and `focus`.
pub(crate) async fn type_text(
    cx: &ActionContext<'_>,
    text: &str,
    submit: Option<(&Chord, &str)>,
    out: &mut Map<String, Value>,
) -> Result<()> {
    out.insert("typed".into(), Value::String(text.to_string()));
    let target = focused_target(cx).await?;
    out.insert(
        "into".into(),
        target.as_ref().map_or(Value::Null, |t| t.described.clone()),
    );
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            keyboard::press_key(cx.page, "Enter").await?;
        }
        let line = line.strip_suffix('\r').unwrap_or(line);
        if !line.is_empty() {
            cx.page
                .send(&InsertTextParams {
                    text: line.to_string(),
                })
                .await?;
        }
    }
    if let Some(t) = target.as_ref().filter(|t| t.field) {
        let value = call(
            cx.dom(),
            &t.object_id,
            "function(){return String(this.value)}",
            &[],
        )
        .await?;
        let value = if t.secret {
            "********".to_string()
        } else {
            value.as_str().unwrap_or("").to_string()
        };
        out.insert("value".into(), Value::String(value));
    }
    if let Some((chord, spec)) = submit {
        keyboard::press(cx.page, chord).await?;
        out.insert("submitKey".into(), Value::String(spec.to_string()));
        out.insert("focus".into(), focused(cx).await);
    }
    Ok(())
}

/// The focused element that will take the text.
struct Target {
    object_id: String,
    /// `{"tag","id","uid"?}`.
    described: Value,
    /// An `<input>` or `<textarea>`: it has a `value`.
    field: bool,
    /// A password field.
    secret: bool,
}

/// The element the text will go to; `None` when it is inside a frame that cannot be looked
/// into. Fails with `NOT_INTERACTABLE` when what has the focus does not take text.
async fn focused_target(cx: &ActionContext<'_>) -> Result<Option<Target>> {
    let reply = cx
        .dom()
        .send(&EvaluateParams {
            object_group: Some(remote::OBJECT_GROUP.into()),
            silent: Some(true),
            context_id: cx.scope.world,
            return_by_value: Some(false),
            ..EvaluateParams::new(FOCUSED_JS.into())
        })
        .await?;
    let Some(object_id) = reply.result.object_id else {
        return Err(nothing_focused());
    };
    let info = call(cx.dom(), &object_id, EDITABLE_FN, &[]).await?;
    if info.get("frame") == Some(&Value::Bool(true)) {
        return Ok(None);
    }
    let s = |k: &str| {
        info.get(k)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let flag = |k: &str| info.get(k) == Some(&Value::Bool(true));
    let uid = match node_from_object(cx.dom(), object_id.clone()).await {
        Ok(node) => cx.uid_of(node.backend_node_id),
        Err(_) => None,
    };
    let mut described = json!({ "tag": s("tag"), "id": s("id") });
    if let (Some(uid), Some(map)) = (&uid, described.as_object_mut()) {
        map.insert("uid".into(), Value::String(uid.clone()));
    }
    if !flag("editable") {
        let (tag, id) = (s("tag"), s("id"));
        if tag == "body" || tag == "html" {
            return Err(nothing_focused());
        }
        let mut name = format!("<{tag}");
        if !id.is_empty() {
            name.push_str(&format!(
                " id={}",
                serde_json::to_string(&id).unwrap_or_default()
            ));
        }
        name.push('>');
        if let Some(uid) = &uid {
            name.push_str(&format!(" (uid {uid})"));
        }
        return Err(Error::new(
            ErrorCode::NotInteractable,
            format!(
                "the keyboard focus is on {name}, which cannot be typed into: {}; click the \
                 field first (or use fill with its uid), then type",
                s("why")
            ),
        ));
    }
    Ok(Some(Target {
        object_id,
        described,
        field: flag("field"),
        secret: flag("secret"),
    }))
}

fn nothing_focused() -> Error {
    Error::new(
        ErrorCode::NotInteractable,
        "nothing on the page has the keyboard focus, so there is nowhere to type; click the \
         field first (or use fill with its uid), then type",
    )
}
