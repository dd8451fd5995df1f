//! Fills a form and clicks a button by uid, the way an agent does: snapshot, pick a uid from
//! the text, act, read what the action reports.
//!
//! `cargo run --example act -p pagesight`

use pagesight::command::{Click, Fill};
use pagesight::{Error, Session, SessionOptions, SnapshotOptions};

#[tokio::main]
async fn main() -> pagesight::Result<()> {
    let page = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/pages/forms.html");
    let mut session = Session::start(SessionOptions::default()).await?;
    let result = fill_and_click(&mut session, page).await;
    session.shutdown().await?;
    result
}

async fn fill_and_click(session: &mut Session, page: &str) -> pagesight::Result<()> {
    session.open(page).await?;
    let snapshot = session.snapshot(&SnapshotOptions::default()).await?;
    // An agent reads the text; here the uids are found by their lines.
    let uid_of = |needle: &str| {
        snapshot
            .text
            .lines()
            .find(|l| l.contains(needle))
            .and_then(|l| l.split_whitespace().find_map(|w| w.strip_prefix("uid=")))
            .map(str::to_string)
            .ok_or_else(|| {
                Error::invalid_argument(format!("no line with {needle} in the snapshot"))
            })
    };
    let name = uid_of("textbox \"Full name\"")?;
    let filled = session
        .fill(&Fill {
            uid: name,
            text: "Grace Hopper".into(),
            then: Default::default(),
        })
        .await?;
    println!("filled {} with {:?}", filled.filled, filled.choice.value);
    let button = uid_of("button \"Place order\"")?;
    let clicked = session
        .click(&Click {
            uid: button,
            button: Default::default(),
            count: 1,
            then: Default::default(),
        })
        .await?;
    println!("clicked {} at {:?}", clicked.clicked, clicked.at);
    println!("{}", session.diff().await?);
    Ok(())
}
