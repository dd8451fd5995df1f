//! The output file: one JSON line per page, each written and flushed when its page is done,
//! so a crawl that is killed loses at most the line being written; and `--resume`, which
//! reads what a file already holds and takes up the rest.

use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use pagesight::{Error, Result};

use crate::record::PageRecord;
use crate::scope::address_of;

/// What an existing output file says was done.
#[derive(Debug, Default, Clone)]
pub struct Resume {
    /// The normalised URLs that have a final line.
    pub done: HashSet<String>,
    /// Links of done pages, with the depth of the page they are on, to follow again when the
    /// crawl follows links (the pages they lead to may not be done yet).
    pub links: Vec<(String, u32)>,
}

/// The output file of a crawl, open for appending.
pub struct OutputFile {
    path: PathBuf,
    file: File,
}

impl OutputFile {
    /// Creates (or empties) `path`.
    pub fn create(path: &Path) -> Result<OutputFile> {
        let file = File::create(path).map_err(|e| cannot(path, "create", &e))?;
        Ok(OutputFile {
            path: path.to_owned(),
            file,
        })
    }

    /// Opens `path` to go on where an earlier crawl stopped: the lines it holds are read
    /// (what they say is returned), a line cut short by a kill and the lines of pages that
    /// were cancelled are dropped — the file is rewritten without them, under a temporary
    /// name first — and new lines are appended. A file that does not exist is created.
    pub fn resume(path: &Path) -> Result<(OutputFile, Resume)> {
        if !path.exists() {
            return Ok((OutputFile::create(path)?, Resume::default()));
        }
        let reader = BufReader::new(File::open(path).map_err(|e| cannot(path, "open", &e))?);
        let mut resume = Resume::default();
        let mut kept: Vec<String> = Vec::new();
        let mut dropped = 0usize;
        // Only the last line can be cut short by a kill: a line that does not read is taken
        // for one only if no line follows it.
        let mut unreadable: Option<usize> = None;
        for (number, line) in reader.split(b'\n').enumerate() {
            let line = line.map_err(|e| cannot(path, "read", &e))?;
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            if let Some(at) = unreadable {
                return Err(Error::invalid_argument(format!(
                    "{} line {} is not a crawl result; --resume takes the output of an \
                     earlier crawl",
                    path.display(),
                    at + 1
                )));
            }
            let Ok(record) = serde_json::from_slice::<PageRecord>(&line) else {
                unreadable = Some(number);
                dropped += 1;
                continue;
            };
            if !record.is_final() {
                dropped += 1;
                continue;
            }
            // A local file's record names it as given: known by its file:// URL.
            let key = address_of(&record.url).map_or_else(|_| record.url.clone(), |(_, key)| key);
            if let Some(links) = &record.links {
                let depth = record.depth.unwrap_or(0);
                resume
                    .links
                    .extend(links.iter().map(|l| (l.url.clone(), depth)));
            }
            resume.done.insert(key);
            kept.push(String::from_utf8_lossy(&line).into_owned());
        }
        if dropped > 0 {
            rewrite(path, &kept)?;
        }
        let file = OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(|e| cannot(path, "open", &e))?;
        Ok((
            OutputFile {
                path: path.to_owned(),
                file,
            },
            resume,
        ))
    }

    /// Writes one record as a line and flushes it to the file.
    pub fn write(&mut self, record: &PageRecord) -> Result<()> {
        let mut line = serde_json::to_vec(record)
            .map_err(|e| Error::invalid_argument(format!("cannot write a result: {e}")))?;
        line.push(b'\n');
        self.file
            .write_all(&line)
            .and_then(|()| self.file.flush())
            .map_err(|e| cannot(&self.path, "write", &e))
    }
}

/// Replaces `path` with `lines`, through a temporary file renamed over it.
fn rewrite(path: &Path, lines: &[String]) -> Result<()> {
    let folder = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut temp =
        tempfile::NamedTempFile::new_in(folder).map_err(|e| cannot(path, "rewrite", &e))?;
    for line in lines {
        temp.write_all(line.as_bytes())
            .and_then(|()| temp.write_all(b"\n"))
            .map_err(|e| cannot(path, "rewrite", &e))?;
    }
    temp.persist(path)
        .map_err(|e| cannot(path, "rewrite", &e.error))?;
    Ok(())
}

fn cannot(path: &Path, what: &str, e: &std::io::Error) -> Error {
    Error::invalid_argument(format!("cannot {what} {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{codes, Failure};

    fn record(url: &str, error: Option<&str>) -> PageRecord {
        PageRecord {
            url: url.into(),
            attempts: 1,
            error: error.map(|code| Failure {
                code: code.into(),
                message: "m".into(),
            }),
            ..PageRecord::default()
        }
    }

    #[test]
    fn resume_keeps_final_lines_and_drops_cut_and_cancelled_ones() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let path = dir.path().join("out.jsonl");
        let mut out = OutputFile::create(&path).expect("created");
        out.write(&record("http://a.test/1", None))
            .expect("written");
        out.write(&record("http://a.test/2", Some("NAVIGATION_FAILED")))
            .expect("written");
        out.write(&record("http://a.test/3", Some(codes::CANCELLED)))
            .expect("written");
        drop(out);
        // A line cut short by a kill.
        let mut raw = OpenOptions::new().append(true).open(&path).expect("opened");
        raw.write_all(b"{\"url\":\"http://a.test/4\",\"tim")
            .expect("written");
        drop(raw);

        let (mut out, resume) = OutputFile::resume(&path).expect("resumed");
        let mut done: Vec<_> = resume.done.iter().cloned().collect();
        done.sort();
        assert_eq!(done, ["http://a.test/1", "http://a.test/2"]);
        out.write(&record("http://a.test/3", None))
            .expect("written");
        let text = std::fs::read_to_string(&path).expect("read");
        let urls: Vec<String> = text
            .lines()
            .map(|l| {
                serde_json::from_str::<PageRecord>(l)
                    .expect("a whole line")
                    .url
            })
            .collect();
        assert_eq!(
            urls,
            ["http://a.test/1", "http://a.test/2", "http://a.test/3"]
        );
    }

    #[test]
    fn resume_knows_a_local_file_named_as_given_by_its_file_url() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let page = dir.path().join("page.html");
        std::fs::write(&page, "<p>a page</p>").expect("written");
        let path = dir.path().join("out.jsonl");
        let mut out = OutputFile::create(&path).expect("created");
        out.write(&record(&page.to_string_lossy(), None))
            .expect("written");
        drop(out);
        let (_, resume) = OutputFile::resume(&path).expect("resumed");
        let canonical = page.canonicalize().expect("its full path");
        let key = url::Url::from_file_path(&canonical).expect("a file URL");
        assert_eq!(
            resume.done.into_iter().collect::<Vec<_>>(),
            [String::from(key)]
        );
    }

    #[test]
    fn resume_refuses_a_file_that_is_not_a_crawl_output() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let path = dir.path().join("notes.txt");
        std::fs::write(&path, "one\ntwo\nthree\n").expect("written");
        let Err(e) = OutputFile::resume(&path) else {
            panic!("a text file was taken for a crawl's output");
        };
        assert!(e.message().contains("not a crawl result"), "{e}");
        assert_eq!(
            std::fs::read_to_string(&path).expect("read"),
            "one\ntwo\nthree\n",
            "the file was left alone"
        );
    }
}
