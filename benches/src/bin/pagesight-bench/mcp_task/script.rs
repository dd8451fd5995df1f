//! The agent's task on Bootstrap's checkout example, and how an agent finds what to act on.
//!
//! An agent reads each element's id (a uid, or a Playwright ref) off the text a server gave
//! it, by the element's role and name, and acts with that id. The bench does the same, with no
//! knowledge of any server's ids: it looks for the role and name in the answers it was given,
//! newest first (a server that answers an action with only what changed leaves the rest of the
//! page in an earlier answer). Two snapshot dialects are read: chrome-devtools-mcp's
//! (`uid=1_23 textbox "First name" required`, which pagesight's MCP server speaks too) and
//! Playwright MCP's YAML (`- textbox "First name" [ref=e23]`).

/// A form field to fill: how an agent finds it, the value, and the DOM id the bench checks it
/// by afterwards.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    pub role: &'static str,
    /// The accessible name, or its start (`Email` for `Email (Optional)`).
    pub name: &'static str,
    pub value: &'static str,
    pub dom_id: &'static str,
}

/// The six text fields the task fills, in the page's order.
pub const TEXT_FIELDS: [Field; 6] = [
    text_field("First name", "Ada", "firstName"),
    text_field("Last name", "Lovelace", "lastName"),
    text_field("Username", "ada", "username"),
    text_field("Email", "ada@example.com", "email"),
    text_field("Address", "12 St James's Square", "address"),
    text_field("Zip", "SW1Y 4JH", "zip"),
];

const fn text_field(name: &'static str, value: &'static str, dom_id: &'static str) -> Field {
    Field {
        role: "textbox",
        name,
        value,
        dom_id,
    }
}

/// The country to choose (the `<select>`'s one real option).
pub const COUNTRY: Field = Field {
    role: "combobox",
    name: "Country",
    value: "United States",
    dom_id: "country",
};

/// The checkbox to tick: its value is what a form tool is given for it.
pub const CHECKBOX: Field = Field {
    role: "checkbox",
    name: "Shipping address is the same as my billing address",
    value: "true",
    dom_id: "same-address",
};

/// The submit button.
pub const SUBMIT: Field = Field {
    role: "button",
    name: "Continue to checkout",
    value: "",
    dom_id: "",
};

/// What the page says after the submit about a field the task leaves empty (the state): the
/// form was validated, and the fields the task filled are not among the complaints.
pub const RESULT_TEXT: &str = "Please provide a valid state.";

/// The expression the bench evaluates in the page after a run, untimed: every value the task
/// set, and whether the form was submitted (Bootstrap's script marks it `was-validated`).
pub const CHECK_EXPRESSION: &str = r#"(() => {
  const value = id => { const e = document.getElementById(id); return e ? e.value : null; };
  const form = document.querySelector('form.needs-validation');
  const box = document.getElementById('same-address');
  return {
    firstName: value('firstName'), lastName: value('lastName'), username: value('username'),
    email: value('email'), address: value('address'), zip: value('zip'),
    country: value('country'),
    sameAddress: box ? box.checked : null,
    submitted: form ? form.classList.contains('was-validated') : false,
  };
})()"#;

/// What differs between the page's state (the value of [`CHECK_EXPRESSION`]) and what the task
/// should have left; empty when the task did everything.
pub fn check_page_state(state: &serde_json::Value) -> Vec<String> {
    let mut problems = Vec::new();
    for field in TEXT_FIELDS.iter().chain([&COUNTRY]) {
        let found = state.get(field.dom_id).and_then(|v| v.as_str());
        if found != Some(field.value) {
            problems.push(format!(
                "{} is {:?}, not {:?}",
                field.dom_id, found, field.value
            ));
        }
    }
    if state.get("sameAddress").and_then(|v| v.as_bool()) != Some(true) {
        problems.push(format!("{} is not ticked", CHECKBOX.dom_id));
    }
    if state.get("submitted").and_then(|v| v.as_bool()) != Some(true) {
        problems.push("the form was not submitted".into());
    }
    problems
}

/// One element line of a snapshot: its id, role and name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Element {
    pub id: String,
    pub role: String,
    pub name: String,
}

/// Reads one snapshot line in either dialect; `None` for a line that names no element with an
/// id.
pub fn parse_line(line: &str) -> Option<Element> {
    let line = line.trim_start();
    if let Some(rest) = line.strip_prefix("uid=") {
        let (id, rest) = rest.split_once(' ').unwrap_or((rest, ""));
        let (role, rest) = if rest.starts_with('"') {
            ("", rest)
        } else {
            rest.split_once(' ').unwrap_or((rest, ""))
        };
        let name = quoted(rest).unwrap_or_default();
        return Some(Element {
            id: id.to_string(),
            role: role.to_string(),
            name,
        });
    }
    let rest = line.strip_prefix("- ")?;
    let start = rest.find("[ref=")? + "[ref=".len();
    let end = rest[start..].find(']')? + start;
    let role_end = rest.find([' ', ':', '[']).unwrap_or(rest.len());
    let after_role = rest[role_end..].trim_start();
    Some(Element {
        id: rest[start..end].to_string(),
        role: rest[..role_end].to_string(),
        name: quoted(after_role).unwrap_or_default(),
    })
}

/// The string quoted at the start of `text` (`\"` and `\\` unescaped), if it opens with one.
fn quoted(text: &str) -> Option<String> {
    let mut chars = text.strip_prefix('"')?.chars();
    let mut out = String::new();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(out),
            '\\' => out.push(chars.next()?),
            c => out.push(c),
        }
    }
    None
}

/// The id of the element of `role` named `name` in `text`: an exact name first, else the first
/// name that starts with it.
pub fn find_in(text: &str, role: &str, name: &str) -> Option<String> {
    let elements: Vec<Element> = text
        .lines()
        .filter_map(parse_line)
        .filter(|e| e.role == role)
        .collect();
    elements
        .iter()
        .find(|e| e.name == name)
        .or_else(|| elements.iter().find(|e| e.name.starts_with(name)))
        .map(|e| e.id.clone())
}

/// The id of the element of `role` named `name` in the newest of `answers` that has one.
pub fn find_newest(answers: &[String], role: &str, name: &str) -> Option<String> {
    answers
        .iter()
        .rev()
        .find_map(|text| find_in(text, role, name))
}

/// The id of the page chrome-devtools-mcp's `new_page` opened, from its page list
/// (`2: http://… [selected]`).
pub fn selected_page_id(text: &str) -> Option<u64> {
    text.lines()
        .filter(|l| l.trim_end().ends_with("[selected]"))
        .filter_map(|l| l.trim_start().split_once(':'))
        .filter_map(|(id, _)| id.trim().parse().ok())
        .next_back()
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEVTOOLS: &str = r#"## Latest page snapshot
uid=1_0 RootWebArea "Checkout example · Bootstrap v5.2" url="http://127.0.0.1:1/"
  uid=1_1 heading "Checkout form" level="2"
  uid=1_3 "Below is an example form"
  uid=1_20 StaticText "Email"
  uid=1_21 textbox "Email (Optional)"
  uid=1_22 textbox "Address" required
  uid=1_23 textbox "Address 2 (Optional)"
  uid=1_30 combobox "Country" expandable haspopup="menu" required value="Choose..."
  uid=1_40 checkbox "Shipping address is the same as my billing address"
  uid=1_50 button "Continue to checkout"
  uid=1_51 button "Say \"hi\""
"#;

    const PLAYWRIGHT: &str = r#"- generic [ref=e2]:
  - heading "Checkout form" [level=2] [ref=e4]
  - textbox "Email (Optional)" [ref=e21]
  - textbox "Address" [ref=e22]
  - textbox "Address 2 (Optional)" [ref=f1e23]
  - combobox "Country" [ref=e30]:
    - option "Choose..." [selected]
    - option "United States"
  - checkbox "Shipping address is the same as my billing address" [ref=e40]
  - button "Continue to checkout" [ref=e50]
"#;

    #[test]
    fn finds_elements_by_role_and_name_in_either_dialect() {
        for (text, prefix) in [(DEVTOOLS, "1_"), (PLAYWRIGHT, "e")] {
            let id = |role: &str, name: &str| find_in(text, role, name);
            assert_eq!(id("textbox", "Address"), Some(format!("{prefix}22")));
            // A name's start finds it when nothing has the exact name.
            assert_eq!(id("textbox", "Email"), Some(format!("{prefix}21")));
            assert_eq!(id("combobox", "Country"), Some(format!("{prefix}30")));
            assert_eq!(id("checkbox", CHECKBOX.name), Some(format!("{prefix}40")));
            assert_eq!(id("button", SUBMIT.name), Some(format!("{prefix}50")));
            assert_eq!(id("textbox", "Country"), None);
            assert_eq!(id("button", "Missing"), None);
        }
        assert_eq!(
            find_in(DEVTOOLS, "button", "Say \"hi\""),
            Some("1_51".into())
        );
        assert_eq!(
            find_in(DEVTOOLS, "heading", "Checkout form"),
            Some("1_1".into())
        );
        assert_eq!(find_in(PLAYWRIGHT, "option", "United States"), None);
    }

    #[test]
    fn the_newest_answer_that_names_an_element_wins() {
        let answers = vec![
            DEVTOOLS.to_string(),
            "uid=2_22 textbox \"Address\" focused".to_string(),
            "Successfully filled the element".to_string(),
        ];
        assert_eq!(
            find_newest(&answers, "textbox", "Address"),
            Some("2_22".into())
        );
        assert_eq!(
            find_newest(&answers, "combobox", "Country"),
            Some("1_30".into())
        );
    }

    #[test]
    fn reads_the_selected_page_of_a_page_list() {
        let text =
            "# new_page response\n## Pages\n1: about:blank\n2: http://127.0.0.1:1/x [selected]\n";
        assert_eq!(selected_page_id(text), Some(2));
        assert_eq!(selected_page_id("no pages"), None);
    }

    #[test]
    fn the_page_state_is_checked_field_by_field() {
        let mut state = serde_json::json!({
            "firstName": "Ada", "lastName": "Lovelace", "username": "ada",
            "email": "ada@example.com", "address": "12 St James's Square", "zip": "SW1Y 4JH",
            "country": "United States", "sameAddress": true, "submitted": true,
        });
        assert!(check_page_state(&state).is_empty());
        state["zip"] = "".into();
        state["submitted"] = false.into();
        let problems = check_page_state(&state);
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems[0].starts_with("zip is"));
    }
}
